//! The session's virtual-time test rig: a [`Session`] wired to the sans-IO emulator of a
//! DGT board and clock ([`Rig`]), both stepped at one virtual instant, then time jumps to
//! the earlier of their deadlines (quinn-proto's `Pair`); a step budget turns a livelock
//! into a failure. Used by this crate's tests and, with the `testing` feature, by the
//! daemon's tests of its journal. Test support only: it reads no clock and never sleeps.

use chessclock_protocol::emulator::{
    ClockView, EmuConfig, Emulator, MoveOrder, PieceAction, PieceMove,
};

use super::{Session, SessionConfig, SessionOutput};
use crate::link::display::BoardSide;
use crate::link::driver::{DriverConfig, Instant};
use crate::link::state::DeviceState;
use crate::link::virtual_time::{self, Stepped};
use crate::session::MoveSource;
use crate::session::interface::{ClockEvent, ClockState, DeviceError, Reply, Request};
use crate::session::observe::Mode;
use chessclock_engine::params::TimeControl;
use chessclock_engine::{Engine, Input, Side, notation};

/// Steps one [`Rig::run_until`] may take before the test fails as a livelock.
const MAX_STEPS: usize = 200_000;

/// A session wired to an emulated board, in virtual time (milliseconds).
#[derive(Debug)]
pub struct Rig {
    pub session: Session,
    pub emu: Emulator,
    /// Virtual now, in ms since the epoch of both.
    pub now: u64,
    /// Every session event with the instant it was polled.
    pub events: Vec<(u64, SessionOutput)>,
    /// The USB cable is in.
    pub plugged: bool,
    /// The searches the session asked for are answered at once (the worker, instantly);
    /// `false`: they wait in `held` until a test answers them ([`Rig::answer_searches`]).
    pub answer_searches: bool,
    /// Searches asked and not answered yet.
    pub held: Vec<super::SearchRequest>,
}

/// The session config of a test clock: White on the left, presses from the lever.
pub fn config() -> SessionConfig {
    SessionConfig {
        clock: 7,
        name: "t".into(),
        port: "/dev/test".into(),
        epoch_us: 0,
        white_side: BoardSide::Left,
        move_source: MoveSource::Lever,
        pause_button: true,
        mode: Mode::Drive,
        draw_rules: None,
        live: false,
    }
}

/// A fresh engine on `control` (notation).
pub fn engine(control: &str) -> Engine {
    let parsed = notation::parse(control).unwrap_or_else(|e| panic!("{control}: {e:?}"));
    Engine::new(parsed.control).expect("a valid control")
}

/// The parsed `control` (notation), as the bus hands it to a clock.
pub fn control(control: &str) -> Box<TimeControl> {
    let parsed = notation::parse(control).unwrap_or_else(|e| panic!("{control}: {e:?}"));
    Box::new(parsed.control)
}

/// Run until `f` holds, at most `within_ms` (1 ms steps); the instant it did.
pub fn until(rig: &mut Rig, within_ms: u64, what: &str, f: impl Fn(&Rig) -> bool) -> u64 {
    let end = rig.now + within_ms;
    while rig.now < end {
        if f(rig) {
            return rig.now;
        }
        let t = rig.now + 1;
        rig.run_until(t);
    }
    panic!("{what}: not within {within_ms} ms");
}

/// The clock shows the engine's times (as of the last step, which advanced it to now).
pub fn shows_wanted(rig: &Rig) -> bool {
    let v = rig.emu.view();
    v.text.is_none() && (u64::from(v.left_seconds), u64::from(v.right_seconds)) == rig.wanted()
}

impl Rig {
    /// A connected session running `control` (notation) against a board configured by `emu`.
    pub fn new(control: &str, emu: EmuConfig) -> Rig {
        Rig::with(config(), engine(control), 0, None, emu)
    }

    /// A connected session configured by `cfg` on `engine` at engine time `offset_ms` (a
    /// resumed game), its journal saying it was played on board `journal_serial`.
    pub fn with(
        cfg: SessionConfig,
        engine: Engine,
        offset_ms: u64,
        journal_serial: Option<String>,
        emu: EmuConfig,
    ) -> Rig {
        let mut session = Session::new(
            cfg,
            DriverConfig::default(),
            engine,
            offset_ms,
            journal_serial,
        );
        session.connect_first(Instant::ZERO);
        session.resume_board(Vec::new());
        Rig {
            session,
            emu: Emulator::new(emu),
            now: 0,
            events: Vec::new(),
            plugged: true,
            answer_searches: true,
            held: Vec::new(),
        }
    }

    /// A rig whose clock has been probed and is ready (asserts it).
    pub fn ready(control: &str, emu: EmuConfig) -> Rig {
        let mut rig = Rig::new(control, emu);
        rig.run_until(1_000);
        assert_eq!(rig.session.device_state(), DeviceState::Ready);
        rig
    }

    pub fn at(&self) -> Instant {
        Instant::from_ms(self.now)
    }

    /// Exchange everything due at `now` until both sides are quiet.
    pub fn step(&mut self) {
        let at = self.at();
        self.emu.handle_timeout(self.now);
        self.session.handle_timeout(at);
        for _ in 0..100 {
            let mut busy = false;
            while let Some(bytes) = self.session.poll_transmit(at) {
                busy = true;
                if self.plugged {
                    self.emu.on_host_bytes(self.now, &bytes);
                }
            }
            let out = self.emu.poll_output(self.now);
            if !out.is_empty() && self.plugged {
                busy = true;
                self.session.handle_input(at, &out);
                self.session.handle_timeout(at);
            }
            while let Some(ev) = self.session.poll_output() {
                busy = true;
                if let SessionOutput::Search(request) = &ev {
                    self.held.push(request.clone());
                }
                self.events.push((self.now, ev));
            }
            if self.answer_searches && !self.held.is_empty() {
                busy = true;
                self.answer_held();
            }
            if !busy {
                return;
            }
        }
        panic!("no quiet point at {} ms: livelock", self.now);
    }

    /// Run until virtual time `until_ms`, jumping from deadline to deadline.
    pub fn run_until(&mut self, until_ms: u64) {
        virtual_time::run_until(self, until_ms, MAX_STEPS);
    }

    /// Answer every held search now, as the worker would.
    fn answer_held(&mut self) {
        let at = self.at();
        for request in std::mem::take(&mut self.held) {
            self.session.handle_verdict(at, request.id, request.run());
        }
    }

    /// Answer the held searches now (a worker that took this long), then run on.
    pub fn answer_searches(&mut self) {
        self.answer_held();
        self.step();
    }

    /// An operator's request now: its answer, once both sides are quiet again.
    pub fn request(&mut self, req: Request) -> Result<Reply, DeviceError> {
        let answer = self.session.handle_request(self.at(), req);
        self.step();
        answer
    }

    /// The state the bus would be shown now.
    pub fn published(&mut self) -> ClockState {
        self.session.published(self.at())
    }

    /// An engine input now, as a request would give it; it must be taken.
    pub fn input(&mut self, input: Input) {
        let at = self.at();
        self.session.advance(at);
        self.session
            .apply(at, input.clone())
            .unwrap_or_else(|e| panic!("{input:?} refused: {e}"));
        self.step();
    }

    /// Start the game for White (or whoever the lever shows to move).
    pub fn start(&mut self) {
        self.request(Request::Start(Side::White))
            .unwrap_or_else(|e| panic!("start refused: {e}"));
    }

    /// Operators press for `sides` over the bus, one after another now. The board executes
    /// what it is sent, but nothing it says is read: the daemon is killed or the cable pulled
    /// at once, before the clock's report of the change comes back.
    pub fn bus_presses_unheard(&mut self, sides: &[Side]) {
        let at = self.at();
        for side in sides {
            self.session
                .handle_request(at, Request::Press(*side))
                .unwrap_or_else(|e| panic!("{side:?}'s press refused: {e}"));
            while let Some(bytes) = self.session.poll_transmit(at) {
                self.emu.on_host_bytes(self.now, &bytes);
            }
            while let Some(ev) = self.session.poll_output() {
                self.events.push((self.now, ev));
            }
        }
    }

    /// `uci` made on the pieces now (the mover's piece lifted first); a move the position
    /// does not allow fails the test.
    pub fn move_piece(&mut self, uci: &str) {
        let mv = PieceMove::parse(uci, self.emu.pieces()).expect("a move");
        self.emu
            .piece_action(self.now, PieceAction::Move(mv, MoveOrder::MoverFirst))
            .expect("legal");
    }

    /// The player to move presses the lever now.
    pub fn press(&mut self) {
        self.emu.press_lever(self.now);
        self.step();
    }

    /// The cable is pulled now: the actor reads EOF and tells the session.
    pub fn unplug(&mut self) {
        self.plugged = false;
        self.session.disconnect(self.at(), "end of file");
        self.step();
    }

    /// The cable is back now: the board restarts (IDLE) and the port is reopened.
    pub fn replug(&mut self) {
        self.plugged = true;
        self.emu.reset_board(self.now);
        self.session.connect(self.at());
        self.step();
    }

    /// What the emulated clock shows now.
    pub fn view(&mut self) -> ClockView {
        self.emu.clock_view(self.now)
    }

    /// What the clock should show now, by the engine: (left, right) whole seconds.
    pub fn wanted(&self) -> (u64, u64) {
        let d = self
            .session
            .engine()
            .display(self.session.time_at(self.at()));
        (d.white_s.min(35_999), d.black_s.min(35_999))
    }

    /// The bus events so far.
    pub fn clock_events(&self) -> Vec<(u64, ClockEvent)> {
        self.events
            .iter()
            .filter_map(|(t, ev)| match ev {
                SessionOutput::Clock { event, .. } => Some((*t, event.clone())),
                _ => None,
            })
            .collect()
    }

    /// The inputs the session asked to journal, in order.
    pub fn journaled(&self) -> Vec<Input> {
        self.events
            .iter()
            .filter_map(|(_, ev)| match ev {
                SessionOutput::Input { input, .. } => Some(input.clone()),
                _ => None,
            })
            .collect()
    }
}

impl Stepped for Rig {
    fn now_ms(&self) -> u64 {
        self.now
    }

    fn set_now_ms(&mut self, ms: u64) {
        self.now = ms;
    }

    fn step(&mut self) {
        Rig::step(self);
    }

    fn next_deadline(&self) -> Option<u64> {
        [
            self.session.poll_timeout().map(Instant::as_ms),
            self.emu.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// The notices the session has given so far (`SessionOutput::Notice`).
pub fn notices(rig: &Rig) -> Vec<String> {
    rig.events
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionOutput::Notice(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}
