//! A sans-IO emulator of a DGT e-board with a DGT 3000 or DGT XL attached (feature
//! `emulator`).
//!
//! Owns the timing of everything the board sends: host bytes go in with
//! [`Emulator::on_host_bytes`], board bytes come out of [`Emulator::poll_output`], and the
//! caller wakes it at [`Emulator::poll_timeout`] (quinn-proto style). Physical actions are
//! injected ([`Emulator::press_lever`], [`Emulator::press_button`], ...). Time is milliseconds
//! of any monotonic clock, passed in; this module never reads a clock and does no IO.
//!
//! The board's mode and fixed answers live in [`board`], the clock in [`clock`], the byte-level
//! fault layer in [`fault`]. What is modelled and what is assumed is written down in
//! `docs/emulator.md`.

pub mod board;
pub mod clock;
pub mod ee_ring;
pub mod fault;
pub mod pieces;

pub use board::{BoardConfig, BoardMode};
pub use clock::{OwnPeriod, OwnPreset, Running};
pub use ee_ring::{EE_LOG_BYTES, EeRing};
pub use fault::{FaultConfig, FaultLayer, FaultSpecError, FaultStats, Lcg};
pub use pieces::{MoveOrder, PieceAction, PieceError, PieceMove, Step};

use crate::ack::{Button, ClockAck, ClockModel, HeldButtons};
use crate::board::{Board, Square};
use crate::clock_command::{ClockCommand, SetAndRun};
use crate::command::Command;
use crate::message::Message;
use board::{BoardAction, board_action};
use clock::Clock;

/// How the emulated board and clock behave.
#[derive(Debug, Clone, PartialEq)]
pub struct EmuConfig {
    /// The board's fixed answers.
    pub board: BoardConfig,
    /// The clock model (DGT 3000 answers version 2.0, DGT XL 1.4).
    pub model: ClockModel,
    /// A clock is cabled to the board at all (false: reports say "no clock", no acks).
    pub clock_present: bool,
    /// The clock is switched on at start.
    pub clock_on: bool,
    /// The clock is in its PC mode (option 25 on a DGT 3000, 23 on a DGT XL).
    pub pc_mode: bool,
    /// The clock takes ICONS (the flag icons); false: it ignores the command and sends no
    /// ack (whether a DGT 3000 takes ICONS is UNVERIFIED, dgt-protocol §7.9).
    pub clock_takes_icons: bool,
    /// Delay between a clock command's arrival and its ack.
    pub ack_delay_ms: u64,
    /// Delay between a change on the clock and the report about it.
    pub report_lag_ms: u64,
    /// Delay of the board's answers to its own commands (version, serial number, ...).
    pub reply_delay_ms: u64,
    /// Bluetooth quirk (spec §5.1, §7.3 (a)): an all-zero BWTIME just before each
    /// clock-command ack.
    pub bt_empty_report: bool,
    /// Bluetooth quirk (spec §7.3 (b), §7.10 item 4): for `bt_duplicate_window_ms` after a
    /// clock command's ack was sent, a clock request (`0x41`) is answered with that ack again
    /// instead of a report.
    pub bt_duplicate_ack: bool,
    /// How long after a clock-command ack a clock request still gets the ack (spec: ~1 s).
    pub bt_duplicate_window_ms: u64,
    /// Faults applied to the output byte stream.
    pub faults: FaultConfig,
}

impl Default for EmuConfig {
    fn default() -> Self {
        EmuConfig {
            board: BoardConfig::default(),
            model: ClockModel::Dgt3000,
            clock_present: true,
            clock_on: true,
            pc_mode: true,
            clock_takes_icons: true,
            ack_delay_ms: 30,
            report_lag_ms: 0,
            reply_delay_ms: 5,
            bt_empty_report: false,
            bt_duplicate_ack: false,
            bt_duplicate_window_ms: 1000,
            faults: FaultConfig::default(),
        }
    }
}

impl EmuConfig {
    /// Switch both Bluetooth quirks on or off (`bt_empty_report`, `bt_duplicate_ack`).
    pub fn bluetooth(mut self, on: bool) -> EmuConfig {
        self.bt_empty_report = on;
        self.bt_duplicate_ack = on;
        self
    }
}

/// What the clock shows and knows right now (for tests, UIs and autoplay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockView {
    /// The board's mode.
    pub board_mode: BoardMode,
    /// The clock model.
    pub model: ClockModel,
    /// A clock is cabled to the board.
    pub present: bool,
    /// The clock is switched on.
    pub powered: bool,
    /// The clock is in PC mode.
    pub pc_mode: bool,
    /// Seconds shown on the left half.
    pub left_seconds: u32,
    /// Seconds shown on the right half.
    pub right_seconds: u32,
    /// Which half counts down.
    pub running: Running,
    /// The lever's right end is up.
    pub right_high: bool,
    /// The left half shows its final flag (frozen at 0).
    pub left_flag: bool,
    /// The right half shows its final flag.
    pub right_flag: bool,
    /// Text on the display, if a text command replaced the times.
    pub text: Option<String>,
    /// The flag icon of the left half is on (set by ICONS; not the final flag).
    pub left_flag_icon: bool,
    /// The flag icon of the right half is on.
    pub right_flag_icon: bool,
    /// The last set-and-run the clock accepted.
    pub last_set_and_run: Option<SetAndRun>,
    /// The pieces on the board, by chess square (whatever the board's orientation).
    pub pieces: Board,
}

/// One host command as the board received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostEntry {
    /// When its last byte arrived.
    pub at_ms: u64,
    /// The command.
    pub command: Command,
}

/// The emulated board + clock. See the module docs.
#[derive(Debug, Clone)]
pub struct Emulator {
    cfg: EmuConfig,
    mode: BoardMode,
    clock: Clock,
    input: Vec<u8>,
    garbage: u64,
    /// Messages waiting for their time, ordered by due time (stable).
    pending: Vec<(u64, Vec<u8>)>,
    wire: FaultLayer,
    last_report: Option<[u8; 7]>,
    next_periodic: Option<u64>,
    /// The last clock-command ack sent to the host and when (for `bt_duplicate_ack`).
    last_command_ack: Option<(u64, ClockAck)>,
    log: Vec<HostEntry>,
    now: u64,
    /// The pieces, by chess square.
    pieces: Board,
    /// The board's own move log.
    ee: EeRing,
    /// A paced message (the move-log dump) holds the line until then: what is due earlier
    /// waits for it (a UART sends one message after the other).
    line_busy_until: u64,
}

impl Emulator {
    /// A board in IDLE mode (as after power-up) with the configured clock.
    pub fn new(cfg: EmuConfig) -> Emulator {
        let mut clock = Clock::new(cfg.model, cfg.clock_present, cfg.clock_on, cfg.pc_mode);
        clock.takes_icons = cfg.clock_takes_icons;
        let wire = FaultLayer::new(cfg.faults);
        let pieces = board::start_position();
        let mut ee = EeRing::new(cfg.board.ee_log_bytes);
        ee.power_up(0, &board::raw_dump(&pieces, cfg.board.orientation));
        Emulator {
            cfg,
            mode: BoardMode::Idle,
            clock,
            input: Vec::new(),
            garbage: 0,
            pending: Vec::new(),
            wire,
            last_report: None,
            next_periodic: None,
            last_command_ack: None,
            log: Vec::new(),
            now: 0,
            pieces,
            ee,
            line_busy_until: 0,
        }
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &EmuConfig {
        &self.cfg
    }

    /// Bytes from the host arrived at `now_ms`.
    pub fn on_host_bytes(&mut self, now_ms: u64, bytes: &[u8]) {
        self.advance(now_ms);
        self.input.extend_from_slice(bytes);
        loop {
            match Command::decode(&self.input) {
                Ok(None) => break,
                Ok(Some((cmd, used))) => {
                    self.input.drain(..used);
                    self.execute(cmd);
                }
                Err(e) => {
                    // A real board ignores what it cannot parse and goes on after it.
                    let n = e.skip_len().min(self.input.len());
                    self.input.drain(..n);
                    self.garbage += n as u64;
                }
            }
        }
    }

    /// Bytes the board has sent by `now_ms` (after the fault layer).
    pub fn poll_output(&mut self, now_ms: u64) -> Vec<u8> {
        self.advance(now_ms);
        let due = self.pending.partition_point(|(at, _)| *at <= self.now);
        for (_, bytes) in self.pending.drain(..due) {
            self.wire.push(self.now, bytes);
        }
        self.wire.poll(self.now)
    }

    /// The next instant at which something happens (a tick, a report, output due).
    pub fn poll_timeout(&self) -> Option<u64> {
        [
            self.clock.next_tick,
            self.next_periodic,
            self.pending.first().map(|(at, _)| *at),
            self.wire.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Process everything due by `now_ms` (ticks, periodic reports).
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.advance(now_ms);
    }

    /// The lever is pressed at `now_ms`.
    /// The board's move log notes the time of the half that stopped.
    pub fn press_lever(&mut self, now_ms: u64) {
        self.advance(now_ms);
        if self.clock.alive() {
            match self.clock.running {
                clock::Running::Left => self.ee.clock(true, self.clock.left),
                clock::Running::Right => self.ee.clock(false, self.clock.right),
                clock::Running::None => {}
            }
        }
        self.clock.press_lever(self.now);
        self.clock_changed(self.now);
    }

    /// A clock button is pressed at `now_ms`: the clock sends a button event (ack 0x88).
    pub fn press_button(&mut self, now_ms: u64, button: Button) {
        self.advance(now_ms);
        if self.clock.alive() && self.mode.acks() {
            let ack = ClockAck::button(button, HeldButtons::of(&[button]));
            self.schedule(self.now + self.cfg.ack_delay_ms, Message::ClockAck(ack));
        }
    }

    /// The clock is switched on or off at `now_ms` (no effect when no clock is cabled).
    pub fn set_clock_power(&mut self, now_ms: u64, on: bool) {
        self.advance(now_ms);
        self.clock.set_power(on);
        self.clock_changed(self.now);
    }

    /// The clock's battery runs low (or is changed) at `now_ms`: its reports say so.
    pub fn set_battery_low(&mut self, now_ms: u64, low: bool) {
        self.advance(now_ms);
        self.clock.battery_low = low;
        self.clock_changed(self.now);
    }

    /// The user selects (or leaves) the clock's PC mode at `now_ms`.
    pub fn set_pc_mode(&mut self, now_ms: u64, on: bool) {
        self.advance(now_ms);
        self.clock.pc_mode = on;
        self.clock_changed(self.now);
    }

    /// The arbiter sets the clock to one of its own modes at `now_ms` (not PC mode), both
    /// halves to `seconds`, and starts it: the half whose lever end is up runs, and each lever
    /// press switches sides, as on a clock that is not driven by a computer.
    pub fn start_own_game(&mut self, now_ms: u64, seconds: u32) {
        self.start_own_preset(now_ms, OwnPreset::plain(seconds));
    }

    /// [`Emulator::start_own_game`] with a preset that may add a period (at a move or at the
    /// flag), as a clock's FIDE presets do.
    pub fn start_own_preset(&mut self, now_ms: u64, preset: OwnPreset) {
        self.advance(now_ms);
        self.clock.start_own_game(preset, self.now);
        self.clock_changed(self.now);
    }

    /// The board loses power and comes back at `now_ms` (a USB replug): it is IDLE again,
    /// half-received host bytes and unsent output are lost. The clock, which has its own
    /// batteries, keeps its state and keeps running. The board's move log keeps what it
    /// held and notes the power-up and the pieces standing.
    pub fn reset_board(&mut self, now_ms: u64) {
        self.advance(now_ms);
        self.ee.power_up(
            self.now,
            &board::raw_dump(&self.pieces, self.cfg.board.orientation),
        );
        self.mode = BoardMode::Idle;
        self.input.clear();
        self.pending.clear();
        self.line_busy_until = 0;
        self.wire.clear();
        self.last_report = None;
        self.next_periodic = None;
        self.last_command_ack = None;
    }

    /// What the clock shows at `now_ms`.
    pub fn clock_view(&mut self, now_ms: u64) -> ClockView {
        self.advance(now_ms);
        self.view()
    }

    /// What the clock showed when time last advanced (no time passes).
    pub fn view(&self) -> ClockView {
        let c = &self.clock;
        ClockView {
            board_mode: self.mode,
            model: c.model,
            present: c.present,
            powered: c.powered,
            pc_mode: c.pc_mode,
            left_seconds: c.left,
            right_seconds: c.right,
            running: c.running,
            right_high: c.right_high,
            left_flag: c.left_final,
            right_flag: c.right_final,
            text: c.text.clone(),
            left_flag_icon: c.flag_icons.0,
            right_flag_icon: c.flag_icons.1,
            last_set_and_run: c.last_set_and_run,
            pieces: self.pieces.clone(),
        }
    }

    /// The pieces on the board, by chess square.
    pub fn pieces(&self) -> &Board {
        &self.pieces
    }

    /// The operator acts on the pieces at `now_ms`: each physical change becomes a
    /// FIELD_UPDATE (in UPDATE, UPDATE_NICE and UPDATE_BRD; none in IDLE), in order, and a
    /// record in the board's move log (in every mode). A move the board cannot carry out
    /// changes nothing and says why.
    pub fn piece_action(&mut self, now_ms: u64, action: PieceAction) -> Result<(), PieceError> {
        self.advance(now_ms);
        let steps = pieces::action_steps(&self.pieces, action)?;
        for step in steps {
            pieces::apply(&mut self.pieces, step);
            let (sq, piece) = match step {
                Step::Lift(s) => (s, None),
                Step::Place(s, p) => (s, Some(p)),
            };
            let field = sq.field_oriented(self.cfg.board.orientation);
            let Some(square) = Square::from_field(field) else {
                continue;
            };
            let raw = board::raw_dump(&self.pieces, self.cfg.board.orientation);
            self.ee.field(self.now, square, piece, &raw);
            if self.mode != BoardMode::Idle {
                self.schedule(self.now, Message::FieldUpdate { square, piece });
            }
        }
        Ok(())
    }

    /// Every host command received so far, oldest first.
    pub fn host_log(&self) -> &[HostEntry] {
        &self.log
    }

    /// Take the host commands received since the last call.
    pub fn drain_host_log(&mut self) -> Vec<HostEntry> {
        std::mem::take(&mut self.log)
    }

    /// The board's move log as a `0x49` would dump it (payload, ending `0x6B`).
    pub fn ee_log(&self) -> Vec<u8> {
        self.ee.dump()
    }

    /// Host bytes that did not form a command and were skipped.
    pub fn garbage_bytes(&self) -> u64 {
        self.garbage
    }

    /// Faults the fault layer applied so far.
    pub fn fault_stats(&self) -> FaultStats {
        self.wire.stats()
    }

    fn advance(&mut self, now_ms: u64) {
        // Time never goes backwards; an older `now` means "no time passed".
        let now = now_ms.max(self.now);
        loop {
            let tick = self.clock.next_tick.filter(|t| *t <= now);
            let periodic = self.next_periodic.filter(|t| *t <= now);
            match (tick, periodic) {
                (Some(t), p) if p.is_none_or(|p| t <= p) => {
                    self.clock.advance(t);
                    self.now = self.now.max(t);
                    self.clock_changed(t);
                }
                (_, Some(p)) => {
                    self.now = self.now.max(p);
                    self.next_periodic = Some(p + 1000);
                    self.report_now(p);
                }
                _ => break,
            }
        }
        self.now = now;
    }

    fn schedule(&mut self, at: u64, message: Message) {
        let at = at.max(self.line_busy_until);
        let i = self.pending.partition_point(|(due, _)| *due <= at);
        self.pending.insert(i, (at, message.encode()));
    }

    /// `bytes` from `at` on at `rate` bytes per second, a tenth of a second's worth at a time
    /// (all at once for rate 0): a long message as a 9600-baud line carries it.
    /// It starts after what is already due (the line is a queue).
    fn schedule_paced(&mut self, at: u64, bytes: Vec<u8>, rate: u32) {
        let queued = self.pending.last().map_or(0, |(due, _)| *due);
        let at = at.max(self.line_busy_until).max(queued);
        if rate == 0 {
            let i = self.pending.partition_point(|(due, _)| *due <= at);
            self.pending.insert(i, (at, bytes));
            return;
        }
        let chunk = usize::try_from(rate / 10).unwrap_or(1).max(1);
        let mut sent = 0u64;
        for piece in bytes.chunks(chunk) {
            let due = at + sent * 1000 / u64::from(rate);
            let i = self.pending.partition_point(|(d, _)| *d <= due);
            self.pending.insert(i, (due, piece.to_vec()));
            sent += piece.len() as u64;
            self.line_busy_until = due;
        }
    }

    /// Something on the clock may have changed at `at`: report it when the mode says so.
    fn clock_changed(&mut self, at: u64) {
        let payload = self.clock.report().encode_payload();
        if self.last_report == Some(payload) {
            return;
        }
        if matches!(self.mode, BoardMode::Update | BoardMode::UpdateNice) {
            self.report_now(at);
        }
    }

    fn report_now(&mut self, at: u64) {
        let report = self.clock.report();
        self.last_report = Some(report.encode_payload());
        self.schedule(at + self.cfg.report_lag_ms, Message::ClockReport(report));
    }

    fn execute(&mut self, cmd: Command) {
        let now = self.now;
        self.log.push(HostEntry {
            at_ms: now,
            command: cmd.clone(),
        });
        if let Command::Clock(clock_cmd) = &cmd {
            self.execute_clock(clock_cmd);
            return;
        }
        match board_action(&self.cfg.board, &cmd, &self.pieces, || self.ee.dump()) {
            BoardAction::Mode(mode) => {
                // No report on entering a mode (the spec says none): UPDATE_NICE reports the
                // next change, UPDATE its periodic reports from a second on; a host that
                // wants the clock at once asks (`0x41`).
                self.mode = mode;
                self.last_report = Some(self.clock.report().encode_payload());
                self.next_periodic = (mode == BoardMode::Update).then_some(now + 1000);
            }
            BoardAction::ClockReport => {
                let answer = match self.bt_repeated_ack(now) {
                    Some(ack) => Message::ClockAck(ack),
                    None => Message::ClockReport(self.clock.report()),
                };
                self.schedule(now + self.cfg.reply_delay_ms, answer);
            }
            BoardAction::Reply(message @ Message::EeMoves(_)) => {
                let rate = self.cfg.board.ee_dump_bytes_per_s;
                self.schedule_paced(now + self.cfg.reply_delay_ms, message.encode(), rate);
            }
            BoardAction::Reply(message) => {
                self.schedule(now + self.cfg.reply_delay_ms, message);
            }
            BoardAction::Nothing => {}
        }
    }

    fn execute_clock(&mut self, cmd: &ClockCommand) {
        let now = self.now;
        let ack = self.clock.execute(cmd, now);
        self.clock_changed(now);
        let Some(ack) = ack else { return };
        if !self.mode.acks() {
            return;
        }
        let at = now + self.cfg.ack_delay_ms;
        if self.cfg.bt_empty_report {
            self.schedule(at, Message::EmptyClockReport);
        }
        self.schedule(at, Message::ClockAck(ack));
        self.last_command_ack = Some((at, ack));
    }

    /// With `bt_duplicate_ack`: the ack a clock request at `now` gets instead of a report,
    /// i.e. the last clock-command ack if it was sent less than `bt_duplicate_window_ms` ago.
    fn bt_repeated_ack(&self, now: u64) -> Option<ClockAck> {
        let (sent, ack) = self.last_command_ack?;
        (self.cfg.bt_duplicate_ack
            && sent <= now
            && now < sent.saturating_add(self.cfg.bt_duplicate_window_ms))
        .then_some(ack)
    }
}
