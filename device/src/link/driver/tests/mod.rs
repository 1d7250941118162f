//! Deterministic virtual-time tests of the [`Driver`] against the sans-IO emulator of a DGT
//! board and clock (`chessclock_protocol::emulator`), in the style of quinn-proto's `Pair`.
//!
//! [`Pair`] steps both machines at one virtual instant, then jumps to the earlier of their
//! deadlines; a step budget turns a livelock into a failure. No ptys, no sleeps, no clock
//! reads: a test covering minutes of link time runs in milliseconds.

mod board_log;
mod commands;
mod faults;
mod icons;
mod lever;
mod link;
mod observe;
mod pieces;
mod reopen;
mod text;

use chessclock_protocol::emulator::{EmuConfig, Emulator};
use chessclock_protocol::{Command, Decoded, Decoder, Message};

use super::{Driver, DriverConfig, DriverEvent, Instant};
use crate::link::display::BoardSide;
use crate::link::display::Face;
use crate::link::state::DeviceState;
use crate::link::virtual_time::{self, Stepped};

/// Steps one [`Pair::run_until`] may take before the test fails as a livelock.
const MAX_STEPS: usize = 20_000;

/// A driver wired to an emulated board, in virtual time (milliseconds).
pub(super) struct Pair {
    pub driver: Driver,
    pub emu: Emulator,
    /// Virtual now, in ms since the epoch of both.
    pub now: u64,
    /// Every driver event with the instant it was polled.
    pub events: Vec<(u64, DriverEvent)>,
    /// Everything the driver wrote, decoded by the emulator, with its arrival time.
    pub host: Vec<(u64, Command)>,
    /// Board output is lost (a Bluetooth link out of range; the port stays open).
    pub muted: bool,
    /// The USB cable is in.
    pub plugged: bool,
    /// Clock acks still to be lost on the way to the host.
    pub lose_acks: u32,
    /// Clock reports still to be lost on the way to the host.
    pub lose_reports: u32,
    /// Chunks the driver handed out while the cable was out (must stay 0).
    pub writes_while_unplugged: usize,
    /// Pushed again whenever the driver asks for a display refresh (a stand-in for the
    /// actor's game half).
    pub face: Option<Face>,
}

impl Pair {
    /// A connected driver with default settings and a board configured by `emu`.
    pub(super) fn new(emu: EmuConfig) -> Pair {
        Pair::with(DriverConfig::default(), emu)
    }

    pub(super) fn with(cfg: DriverConfig, emu: EmuConfig) -> Pair {
        let mut driver = Driver::new(cfg);
        driver.connect(Instant::ZERO);
        Pair {
            driver,
            emu: Emulator::new(emu),
            now: 0,
            events: Vec::new(),
            host: Vec::new(),
            muted: false,
            plugged: true,
            lose_acks: 0,
            lose_reports: 0,
            writes_while_unplugged: 0,
            face: None,
        }
    }

    fn at(&self) -> Instant {
        Instant::from_ms(self.now)
    }

    /// Exchange everything due at `now` until both sides are quiet.
    fn step(&mut self) {
        let at = self.at();
        self.driver.handle_timeout(at);
        self.emu.handle_timeout(self.now);
        for _ in 0..100 {
            let mut busy = false;
            while let Some(bytes) = self.driver.poll_transmit(at) {
                busy = true;
                if self.plugged {
                    self.emu.on_host_bytes(self.now, &bytes);
                } else {
                    self.writes_while_unplugged += 1;
                }
            }
            for entry in self.emu.drain_host_log() {
                self.host.push((entry.at_ms, entry.command));
            }
            let out = self.emu.poll_output(self.now);
            let out = self.lose(out);
            if !out.is_empty() && self.plugged && !self.muted {
                busy = true;
                self.driver.handle_input(at, &out);
            }
            while let Some(ev) = self.driver.poll_event() {
                busy = true;
                if ev == DriverEvent::RefreshDisplay
                    && let Some(face) = self.face
                {
                    self.driver.push_times(at, face, None);
                }
                self.events.push((self.now, ev));
            }
            if !busy {
                return;
            }
        }
        panic!("no quiet point at {} ms: livelock", self.now);
    }

    /// Take `lose_acks` clock-command acks and `lose_reports` clock reports out of the
    /// board's output.
    fn lose(&mut self, out: Vec<u8>) -> Vec<u8> {
        if (self.lose_acks == 0 && self.lose_reports == 0) || out.is_empty() {
            return out;
        }
        let mut decoder = Decoder::default();
        decoder.push(&out);
        let mut kept = Vec::new();
        for item in decoder.by_ref() {
            if let Ok(Decoded::Message(m)) = item {
                if let Message::ClockAck(ack) = &m
                    && ack.answers().is_some()
                    && self.lose_acks > 0
                {
                    self.lose_acks -= 1;
                    continue;
                }
                if matches!(m, Message::ClockReport(_)) && self.lose_reports > 0 {
                    self.lose_reports -= 1;
                    continue;
                }
                kept.extend(m.encode());
            }
        }
        kept
    }

    /// Run until virtual time `until_ms`, jumping from deadline to deadline.
    pub(super) fn run_until(&mut self, until_ms: u64) {
        virtual_time::run_until(self, until_ms, MAX_STEPS);
    }

    /// Run for `ms` more milliseconds.
    pub(super) fn run_for(&mut self, ms: u64) {
        self.run_until(self.now + ms);
    }

    /// Bytes that did not come from the board (line noise) arrive now.
    pub(super) fn inject(&mut self, bytes: &[u8]) {
        self.driver.handle_input(self.at(), bytes);
        self.step();
    }

    /// Push `face` now and keep pushing it on every refresh the driver asks for.
    pub(super) fn show(&mut self, face: Face) {
        self.face = Some(face);
        self.driver.push_times(self.at(), face, None);
        self.step();
    }

    /// The cable is pulled now: the actor reads EOF and tells the driver.
    pub(super) fn unplug(&mut self) {
        self.plugged = false;
        self.driver.disconnect();
        self.step();
    }

    /// The cable is back now: the board restarts (IDLE) and the port is reopened.
    pub(super) fn replug(&mut self) {
        self.plugged = true;
        self.emu.reset_board(self.now);
        self.driver.connect(self.at());
        self.step();
    }

    /// Events since `from_ms` matching `f`.
    pub(super) fn events_since(
        &self,
        from_ms: u64,
        f: impl Fn(&DriverEvent) -> bool,
    ) -> Vec<(u64, DriverEvent)> {
        self.events
            .iter()
            .filter(|(t, ev)| *t >= from_ms && f(ev))
            .cloned()
            .collect()
    }

    /// When the driver's device state became `state` (first time since `from_ms`).
    pub(super) fn became(&self, from_ms: u64, state: DeviceState) -> Option<u64> {
        self.events
            .iter()
            .find(|(t, ev)| {
                *t >= from_ms && matches!(ev, DriverEvent::DeviceState { new, .. } if *new == state)
            })
            .map(|(t, _)| *t)
    }

    /// Arrival times of host commands equal to `cmd`.
    pub(super) fn sent(&self, cmd: &Command) -> Vec<u64> {
        self.host
            .iter()
            .filter(|(_, c)| c == cmd)
            .map(|(t, _)| *t)
            .collect()
    }

    /// Arrival times of clock commands matching `f`.
    pub(super) fn sent_clock(
        &self,
        f: impl Fn(&chessclock_protocol::ClockCommand) -> bool,
    ) -> Vec<u64> {
        self.host
            .iter()
            .filter(|(_, c)| matches!(c, Command::Clock(cc) if f(cc)))
            .map(|(t, _)| *t)
            .collect()
    }
}

impl Stepped for Pair {
    fn now_ms(&self) -> u64 {
        self.now
    }

    fn set_now_ms(&mut self, ms: u64) {
        self.now = ms;
    }

    fn step(&mut self) {
        Pair::step(self);
    }

    fn next_deadline(&self) -> Option<u64> {
        [
            self.driver.poll_timeout().map(Instant::as_ms),
            self.emu.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// Left 5:00 running, right 3:00.
pub(super) fn running_left() -> Face {
    Face {
        left_s: 300,
        right_s: 180,
        run: Some(BoardSide::Left),
    }
}

/// A probed pair whose clock is ready (asserts it).
pub(super) fn ready(emu: EmuConfig) -> Pair {
    let mut p = Pair::new(emu);
    p.run_until(1_000);
    assert_eq!(
        p.driver.device_state(),
        DeviceState::Ready,
        "{:?}",
        p.events
    );
    p
}
