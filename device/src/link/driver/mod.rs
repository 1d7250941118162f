//! The board driver: everything between the bytes of a DGT board link and typed events, as a
//! pure state machine (quinn-proto style).
//!
//! Owns the link's behaviour: the probe/handshake and its retries, clock model detection and
//! re-probe, the clock command [`queue`] with ack / timeout / bounded resend, the "not in PC
//! mode" error ack and its recheck, the keep-alive (dgt-protocol §7.6), the Bluetooth quirks
//! (duplicate acks, all-zero reports, via `chessclock_protocol::quirks`), lever and button
//! decoding, the wire side of the display (what was pushed, when the device ticks, text,
//! flag icons: [`output`]) and reading the board's own move log ([`board_log`]).
//!
//! It must not do IO, spawn tasks or read a clock: the caller (the game
//! [`Session`](crate::session::Session), or a virtual-time test) passes `now` in, feeds received bytes to [`Driver::handle_input`],
//! wakes it at [`Driver::poll_timeout`] with [`Driver::handle_timeout`], writes what
//! [`Driver::poll_transmit`] returns and acts on [`Driver::poll_event`]. Poll transmits and
//! events after every call that takes `now`. A spurious `handle_timeout` is harmless. It
//! knows nothing of the game: which colour a half belongs to and what the display should say
//! are the caller's business.

mod board_log;
mod output;
mod queue;
mod receive;
mod time;
mod wire;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::time::Duration;

use chessclock_protocol::quirks::DuplicateAckFilter;
use chessclock_protocol::{Button, ClockModel, ClockReport, Decoder, Message};

pub use crate::link::instant::Instant;
pub(crate) use queue::Kind;
use queue::{Queue, TimeoutOutcome};
use time::{Timer, Timers};

use super::display::Pushed;
use crate::link::display::BoardSide;
use crate::link::state::DeviceState;

/// Board probe: resend the handshake this often until the board answers.
pub(crate) const PROBE_INTERVAL: Duration = Duration::from_secs(2);
/// After this much silence from a probed board, ask it for its serial number (PicoChess's
/// keep-alive, dgt-protocol §7.6).
pub(crate) const KEEPALIVE_IDLE: Duration = Duration::from_secs(3);
/// A board that stays silent this long after a keep-alive is taken as gone (a link that died
/// without EOF, e.g. Bluetooth out of range).
pub(crate) const KEEPALIVE_DEAD: Duration = Duration::from_secs(6);
/// After the last field update, this much quiet before the whole board is asked for (a
/// scan takes 200-250 ms and one move can give several updates in odd orders; PicoChess
/// waits 0.25 s on USB, dgt-protocol §4).
pub(crate) const BOARD_SETTLE: Duration = Duration::from_millis(250);
/// While the clock refuses set-and-run (not in PC mode), try again this often.
pub(crate) const PC_MODE_RECHECK: Duration = Duration::from_secs(5);
/// How long after the device's own second the driver compares what it shows, unless a clock
/// report (which a running clock sends as its display changes) woke it within that time: one
/// wake-up per second and board instead of two.
pub(crate) const DEVICE_TICK_SLACK: Duration = Duration::from_millis(100);
/// The clock identified itself before the board reported its lever: how long to wait for
/// the report before asking again (`0x41`), and after that before the clock is taken as
/// ready without it. Longer than the Bluetooth window (about 1 s after a clock command's
/// ack, dgt-protocol §7.3) in which a clock request is answered with that ack again.
pub(crate) const LEVER_WAIT: Duration = Duration::from_millis(1200);
/// The longest a text stays on the display (an operator's `ShowText` or an announcement):
/// the times must come back. A press or any other change of the game ends text sooner
/// ([`Driver::end_text`]).
pub(crate) const MAX_TEXT: Duration = Duration::from_secs(10);

/// Settings of one driver.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// The clock's index, for log lines.
    pub clock: u32,
    /// How long to wait for a clock ack.
    pub command_timeout: Duration,
    /// How often to resend an unacknowledged clock command.
    pub command_retries: u32,
    /// Subtracted from the arrival time of a lever report.
    pub transport_latency: Duration,
}

impl Default for DriverConfig {
    fn default() -> Self {
        DriverConfig {
            clock: 0,
            command_timeout: Duration::from_millis(2500),
            command_retries: 2,
            transport_latency: Duration::ZERO,
        }
    }
}

/// What happened on the link, for the caller to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DriverEvent {
    /// The lever went down on `half` (that player ended a move) at `at`: the arrival of the
    /// report minus the transport latency.
    Lever { half: BoardSide, at: Instant },
    /// A clock button was pressed.
    Button(Button),
    /// The board told its serial number (first time, or a different one).
    BoardSerial(String),
    /// The clock identified itself; `changed` if that differs from what was known.
    ClockIdentified {
        model: ClockModel,
        firmware: String,
        changed: bool,
    },
    /// The board/clock state changed.
    DeviceState { old: DeviceState, new: DeviceState },
    /// The clock acknowledged a command.
    Acked(Kind),
    /// The clock refused a command (not in PC mode).
    Refused(Kind),
    /// The clock did not acknowledge a command after the resends.
    GaveUp(Kind),
    /// The board stopped answering, keep-alive included: the caller should close the port
    /// (and call [`Driver::disconnect`]).
    LinkDead,
    /// The display should be pushed afresh even if it seems to show the right thing (the
    /// clock became usable, a resync instant, text ended, a PC-mode recheck).
    RefreshDisplay,
    /// The board's move log asked for with [`Driver::request_board_log`]: the EE_MOVES
    /// payload, or `None` when the board did not send it whole.
    BoardLog(Option<Vec<u8>>),
    /// The pieces: a board dump or a field update, read at `at`.
    Board { message: Message, at: Instant },
    /// A clock report (times, flags, running, lever) read at `at`; before the `Lever` event
    /// of a lever change it carries.
    ClockReport { report: ClockReport, at: Instant },
}

/// Waiting for the lever before the clock is ready (see [`LEVER_WAIT`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LeverWait {
    /// Not waiting.
    No,
    /// Identified, no report yet: ask again when the wait is over.
    First,
    /// Asked again: ready without the lever when the wait is over.
    AskedAgain,
}

/// The board driver. See the module docs.
#[derive(Debug)]
pub(crate) struct Driver {
    cfg: DriverConfig,
    decoder: Decoder,
    connected: bool,
    /// The board has not answered the handshake yet.
    probing: bool,
    probe_attempts: u32,
    device_state: DeviceState,
    model: Option<ClockModel>,
    firmware: String,
    board_serial: String,
    queue: Queue,
    duplicates: DuplicateAckFilter,
    timers: Timers,
    /// A keep-alive went out and nothing has come since.
    keepalive_sent: bool,
    /// Last lever position seen on this link (true = right end up).
    lever_right_high: Option<bool>,
    /// The clock identified itself on this link before a report said where its lever is:
    /// it is ready once one does ([`LEVER_WAIT`]).
    lever_wait: LeverWait,
    /// What the clock was last told, and when.
    pushed: Option<Pushed>,
    /// The flag icons (left, right) last sent on this link (`None`: not since the clock
    /// was identified).
    icons: Option<(bool, bool)>,
    /// The clock did not take ICONS on this link (refused or no ack): no more are sent.
    icons_refused: bool,
    /// Observe mode: the clock runs its own mode; nothing is sent to its display.
    observe: bool,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<DriverEvent>,
    /// Bytes from the board that were no message, for the log.
    garbage: receive::Garbage,
    /// The board's move log, while it is awaited.
    board_log: board_log::BoardLog,
}

impl Driver {
    /// A driver for a port that is not open yet; call [`Driver::connect`] once it is.
    pub(crate) fn new(cfg: DriverConfig) -> Driver {
        let queue = Queue::new(cfg.command_retries);
        Driver {
            cfg,
            decoder: Decoder::default(),
            connected: false,
            probing: false,
            probe_attempts: 0,
            device_state: DeviceState::Probing,
            model: None,
            firmware: String::new(),
            board_serial: String::new(),
            queue,
            duplicates: DuplicateAckFilter::default(),
            timers: Timers::default(),
            keepalive_sent: false,
            lever_right_high: None,
            lever_wait: LeverWait::No,
            pushed: None,
            icons: None,
            icons_refused: false,
            observe: false,
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            garbage: receive::Garbage::default(),
            board_log: board_log::BoardLog::default(),
        }
    }

    // ---- link lifetime -------------------------------------------------------------------

    /// The port is open (first time or again): probe the board from `now` on.
    pub(crate) fn connect(&mut self, now: Instant) {
        self.reset_link();
        self.connected = true;
        self.probing = true;
        self.probe_attempts = 0;
        self.timers.set(Timer::Probe, now);
        self.set_state(DeviceState::Probing);
    }

    /// The port is gone (EOF, EIO, a failed write, or after [`DriverEvent::LinkDead`]).
    /// Every clock command is forgotten, a set-and-run in flight or queued too: the new
    /// link's first one is the caller's push at the clock's ready (`RefreshDisplay`), with
    /// the times of then.
    pub(crate) fn disconnect(&mut self) {
        self.reset_link();
        self.set_state(DeviceState::Disconnected);
    }

    fn reset_link(&mut self) {
        self.connected = false;
        self.probing = false;
        self.decoder = Decoder::default();
        self.queue.reset_link();
        self.duplicates.reset();
        self.timers.clear();
        self.transmit.clear();
        self.keepalive_sent = false;
        self.lever_right_high = None;
        self.lever_wait = LeverWait::No;
        self.pushed = None;
        self.model = None;
        self.icons = None;
        self.icons_refused = false;
        self.board_log = board_log::BoardLog::default();
    }

    /// The half whose lever end is up (its player is to move), once a report has said.
    pub(crate) fn lever_up(&self) -> Option<BoardSide> {
        self.lever_right_high.map(|right| {
            if right {
                BoardSide::Right
            } else {
                BoardSide::Left
            }
        })
    }

    /// New ack timeout and resend count (a configuration reload).
    pub(crate) fn set_limits(&mut self, command_timeout: Duration, command_retries: u32) {
        self.cfg.command_timeout = command_timeout;
        self.cfg.command_retries = command_retries;
        self.queue.set_retries(command_retries);
    }

    /// A new transport latency for lever timestamps.
    pub(crate) fn set_transport_latency(&mut self, latency: Duration) {
        self.cfg.transport_latency = latency;
    }

    /// Observe mode on or off. In observe mode the clock runs one of its own modes and the
    /// driver sends it no set-and-run, text or beep: [`Driver::push_times`],
    /// [`Driver::show_text`] and [`Driver::beep`] do nothing. A clock that refused set-and-run
    /// (not in PC mode) is fine to observe, so it is `ready` again.
    pub(crate) fn set_observe(&mut self, on: bool) {
        if self.observe == on {
            return;
        }
        self.observe = on;
        if on {
            for timer in [
                Timer::Resync,
                Timer::DeviceTick,
                Timer::PcModeRecheck,
                Timer::TextUntil,
            ] {
                self.timers.stop(timer);
            }
            self.queue.drop_display();
            self.pushed = None;
            self.icons = None;
            if self.device_state == DeviceState::NotInPcMode && self.model.is_some() {
                self.set_state(DeviceState::Ready);
            }
        } else {
            self.events.push_back(DriverEvent::RefreshDisplay);
        }
    }

    /// Whether the driver is in observe mode.
    #[cfg(test)]
    pub(crate) fn observing(&self) -> bool {
        self.observe
    }

    // ---- what the caller reads -----------------------------------------------------------

    /// Board/clock state.
    pub(crate) fn device_state(&self) -> DeviceState {
        self.device_state
    }

    /// The clock model, once identified.
    pub(crate) fn model(&self) -> Option<ClockModel> {
        self.model
    }

    /// Whether the clock takes display pushes (open port, clock identified and answering,
    /// or not answering lately but worth trying).
    pub(crate) fn clock_usable(&self) -> bool {
        self.connected
            && matches!(
                self.device_state,
                DeviceState::Ready | DeviceState::NotResponding
            )
    }

    // ---- the sans-IO interface -----------------------------------------------------------

    /// The earliest instant [`Driver::handle_timeout`] has something to do.
    #[must_use]
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next()
    }

    /// Bytes to write to the port, one chunk per call; `None` when there is nothing (more).
    /// A clock command goes out only when none is in flight, and only once the board has
    /// answered the handshake (before that it is IDLE and acks nothing); its ack timer starts
    /// at `now`.
    #[must_use]
    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Vec<u8>> {
        if let Some(bytes) = self.transmit.pop_front() {
            return Some(bytes);
        }
        if !self.connected || self.probing || self.board_log.awaited() {
            return None;
        }
        let bytes = self.queue.poll_send()?;
        // A new command: an identical ack from now on is its answer, not a duplicate.
        self.duplicates.reset();
        self.timers.set(Timer::Ack, now + self.cfg.command_timeout);
        Some(bytes)
    }

    /// The next event, if any.
    #[must_use]
    pub(crate) fn poll_event(&mut self) -> Option<DriverEvent> {
        self.events.pop_front()
    }

    /// Time passed: act on every timer due by `now`.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        for timer in Timer::ALL {
            if self.timers.take_expired(timer, now) {
                self.on_timer(timer, now);
            }
        }
    }

    fn on_timer(&mut self, timer: Timer, now: Instant) {
        match timer {
            Timer::KeepAlive => {
                if self.board_log_silent(now) {
                    return;
                }
                if self.keepalive_sent {
                    tracing::warn!(clock = self.cfg.clock, "the board stopped answering");
                    self.events.push_back(DriverEvent::LinkDead);
                } else {
                    self.send(wire::board_serial_request());
                    self.keepalive_sent = true;
                    self.timers.set(Timer::KeepAlive, now + KEEPALIVE_DEAD);
                }
            }
            Timer::Probe => {
                self.probe_attempts += 1;
                if self.probe_attempts > 1 {
                    tracing::debug!(
                        clock = self.cfg.clock,
                        "board handshake, attempt {}",
                        self.probe_attempts
                    );
                }
                self.send(wire::handshake());
                self.timers.set(Timer::Probe, now + PROBE_INTERVAL);
            }
            Timer::Ack => match self.queue.on_timeout() {
                Some(TimeoutOutcome::Resend(bytes)) => {
                    self.send(bytes);
                    self.timers.set(Timer::Ack, now + self.cfg.command_timeout);
                }
                Some(TimeoutOutcome::GaveUp(Kind::Icons)) => self.icons_not_taken("no ack"),
                Some(TimeoutOutcome::GaveUp(kind)) => {
                    tracing::warn!(
                        clock = self.cfg.clock,
                        "the clock did not acknowledge {kind:?} after {} tries",
                        self.cfg.command_retries + 1
                    );
                    if self.device_state != DeviceState::NoClock {
                        self.set_state(DeviceState::NotResponding);
                    }
                    self.events.push_back(DriverEvent::GaveUp(kind));
                }
                None => {}
            },
            Timer::PcModeRecheck => {
                self.timers.set(Timer::PcModeRecheck, now + PC_MODE_RECHECK);
                self.events.push_back(DriverEvent::RefreshDisplay);
            }
            Timer::TextUntil => {
                self.queue.push(wire::end());
                self.events.push_back(DriverEvent::RefreshDisplay);
            }
            Timer::LeverWait => match self.lever_wait {
                LeverWait::First => {
                    self.send(wire::clock_report_request());
                    self.lever_wait = LeverWait::AskedAgain;
                    self.timers.set(Timer::LeverWait, now + LEVER_WAIT);
                }
                LeverWait::AskedAgain => {
                    tracing::info!(
                        clock = self.cfg.clock,
                        "the board does not report the clock's lever; its times are set without it"
                    );
                    self.lever_wait = LeverWait::No;
                    self.set_state(DeviceState::Ready);
                }
                LeverWait::No => {}
            },
            Timer::Resync => self.events.push_back(DriverEvent::RefreshDisplay),
            Timer::BoardSettle => self.send(wire::board_dump_request()),
            // Nothing to send by itself: the caller compares [`Driver::shows`] with what
            // should be shown after every wake-up. Wake it after the next device second too.
            Timer::DeviceTick => self.schedule_device_tick(now),
        }
    }

    /// The clock did not take ICONS: keep its state, send no more on this link.
    fn icons_not_taken(&mut self, why: &str) {
        tracing::info!(
            clock = self.cfg.clock,
            "the clock does not take the flag icons ({why}); none are sent to it"
        );
        self.icons_refused = true;
        self.events.push_back(DriverEvent::GaveUp(Kind::Icons));
    }

    /// Send `bytes` (after the board's move log, while it is awaited).
    fn send(&mut self, bytes: Vec<u8>) {
        if self.connected
            && let Err(bytes) = self.board_log.hold(bytes)
        {
            self.transmit.push_back(bytes);
        }
    }

    fn set_state(&mut self, new: DeviceState) {
        let old = self.device_state;
        if old == new {
            return;
        }
        tracing::info!(
            clock = self.cfg.clock,
            "device state {} -> {}",
            old.as_str(),
            new.as_str()
        );
        self.device_state = new;
        self.events.push_back(DriverEvent::DeviceState { old, new });
        if new == DeviceState::Ready {
            self.events.push_back(DriverEvent::RefreshDisplay);
        }
    }
}
