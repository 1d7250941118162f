//! The device actor loop: serial reads, operator requests and timers in one `select!`.
//!
//! Owns the port, the decoder ([`Link`]), the clock command [`Queue`] and the game
//! [`Engine`]. It is the only place where wall time (tokio's monotonic clock) meets the pure
//! engine: `now` is read once per wake-up and passed down.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_serial::SerialStream;

use super::announce::{self, Announcement};
use super::display::{Face, Pushed, face, next_device_tick, predicted};
use super::handle::{
    BoardSide, ClockEvent, ClockState, DeviceError, DeviceHandle, DeviceState, Envelope, Reply,
    Request,
};
use super::link::{self, Incoming, Link, Model};
use super::persist::{self, GameRecord, GameStart, Persist};
use super::queue::{AckOutcome, Kind, Queue, TimeoutOutcome};
use super::record::GameLog;
use super::{DeviceOptions, PortSpec, SpawnError, port};
use crate::engine::notation;
use crate::engine::{Engine, Event, Input, InputError, Side, Time};
use crate::monotonic::monotonic_us;
use crate::virtual_board::{VirtualBoard, VirtualOptions};

/// How long a write may take before the port is taken as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// Board probe: resend the handshake this often until the board answers.
const PROBE_INTERVAL: Duration = Duration::from_secs(2);
/// Game events waiting to be shown as text, at most.
const MAX_ANNOUNCEMENTS: usize = 3;
/// While the clock refuses set-and-run (not in PC mode), check again this often.
const PC_MODE_RECHECK: Duration = Duration::from_secs(5);

pub(super) async fn spawn(
    index: u32,
    name: String,
    spec: PortSpec,
    mut options: DeviceOptions,
) -> Result<(DeviceHandle, JoinHandle<()>, PathBuf), SpawnError> {
    let parsed = notation::parse(&options.time_control).map_err(|e| SpawnError::TimeControl {
        notation: options.time_control.clone(),
        message: e.message.clone(),
    })?;
    let mut engine = Engine::new(parsed.control.clone()).map_err(|e| SpawnError::TimeControl {
        notation: options.time_control.clone(),
        message: e.to_string(),
    })?;
    let (virtual_board, path) = match &spec {
        PortSpec::Tty(p) => (None, p.clone()),
        PortSpec::Virtual => {
            let vb = VirtualBoard::start(VirtualOptions::default())?;
            let path = vb.path().to_path_buf();
            (Some(vb), path)
        }
    };
    let stream = port::open_tty(&path)?;
    let mut offset_ms = 0;
    let mut time_control = parsed.canonical.clone();
    let mut replayed = Vec::new();
    let mut started_wall_ms = persist::wall_ms();
    let persist = match (&spec, &options.state_dir) {
        (PortSpec::Tty(p), Some(dir)) => {
            let name = persist::store_name(p);
            let (persist, restored) = Persist::open(dir, &name)
                .map_err(|e| SpawnError::Port(std::io::Error::other(e.to_string())))?;
            match restored {
                Some(r) => {
                    tracing::info!(
                        "{}: resuming the journaled game at {} ms",
                        p.display(),
                        r.now_ms
                    );
                    engine = r.engine;
                    offset_ms = r.now_ms;
                    replayed = r.replayed;
                    started_wall_ms = r.started_wall_ms;
                    if let Some(side) = r.white_side {
                        options.white_side = side;
                    }
                    time_control = notation::canonical(engine.control());
                }
                None => persist.new_game(GameStart {
                    control: engine.control().clone(),
                    t_ms: 0,
                    wall_ms: persist::wall_ms(),
                }),
            }
            Some(persist)
        }
        _ => None,
    };
    let log = persist.as_ref().map(|_| {
        let mut log = GameLog::new(
            &name,
            &path.display().to_string(),
            &time_control,
            started_wall_ms,
        );
        for (t_ms, wall_ms, ev) in replayed {
            if let Some(ev) = clock_event(ev) {
                log.event(t_ms, wall_ms, &ev);
            }
        }
        log
    });
    let (tx, rx) = mpsc::channel(32);
    let epoch = Instant::now();
    let state = ClockState {
        index,
        name,
        port: path.display().to_string(),
        model: String::new(),
        firmware: String::new(),
        board_serial: String::new(),
        connected: true,
        device_state: DeviceState::Probing,
        game_state: "ready".into(),
        time_control,
        white_side: options.white_side,
        snapshot: serde_json::to_value(engine.snapshot(Time::from_ms(offset_ms)))
            .unwrap_or_default(),
        as_of_us: monotonic_us(),
    };
    let (state_tx, state_rx) = watch::channel(state.clone());
    let (events, _) = broadcast::channel(256);
    let handle = DeviceHandle::new(tx, state_rx, events.clone());
    let mut actor = Actor {
        options,
        path: path.clone(),
        port: Some(stream),
        link: Link::default(),
        queue: Queue::new(Duration::ZERO, 0),
        engine,
        epoch,
        offset_ms,
        persist,
        log,
        state,
        state_tx,
        events,
        rx,
        pushed: None,
        resync_at: None,
        lever_right_high: None,
        probe_next: Some(epoch),
        probe_attempts: 0,
        reopen_at: None,
        pc_mode_recheck: None,
        text_until: None,
        announcements: VecDeque::new(),
        dirty: true,
        _virtual: virtual_board,
    };
    actor.queue = Queue::new(actor.options.command_timeout, actor.options.command_retries);
    let task = tokio::spawn(async move { actor.run().await });
    Ok((handle, task, path))
}

struct Actor {
    options: DeviceOptions,
    path: PathBuf,
    port: Option<SerialStream>,
    link: Link,
    queue: Queue,
    engine: Engine,
    epoch: Instant,
    /// Engine time at `epoch` (non-zero for a game resumed from the journal).
    offset_ms: u64,
    /// The game's journal (`None`: not journaled).
    persist: Option<Persist>,
    /// The game's record so far (kept where the game is journaled).
    log: Option<GameLog>,
    state: ClockState,
    state_tx: watch::Sender<ClockState>,
    events: broadcast::Sender<ClockEvent>,
    rx: mpsc::Receiver<Envelope>,
    /// What the clock was last told, and when.
    pushed: Option<Pushed>,
    /// Push once more at this instant to bring the device's countdown in phase.
    resync_at: Option<Instant>,
    /// Last lever position seen (true = right side high).
    lever_right_high: Option<bool>,
    /// When to (re)send the board handshake; `None` once the board answered.
    probe_next: Option<Instant>,
    probe_attempts: u32,
    /// When to try to reopen a vanished port.
    reopen_at: Option<Instant>,
    /// While not in PC mode: when to try a set-and-run again.
    pc_mode_recheck: Option<Instant>,
    /// Text on the display until then; times are shown again afterwards.
    text_until: Option<Instant>,
    /// Game events to show as text, one after another, once the times have been pushed.
    announcements: VecDeque<Announcement>,
    /// The display must be pushed (state changed).
    dirty: bool,
    /// Keeps an emulated board alive as long as the actor.
    _virtual: Option<VirtualBoard>,
}

enum Wake {
    Request(Option<Envelope>),
    Read(std::io::Result<usize>),
    Timer,
}

impl Actor {
    fn time(&self, now: Instant) -> Time {
        let ms = now.saturating_duration_since(self.epoch).as_millis();
        Time::from_ms(
            u64::try_from(ms)
                .unwrap_or(u64::MAX)
                .saturating_add(self.offset_ms),
        )
    }

    fn instant(&self, t: Time) -> Instant {
        self.epoch + Duration::from_millis(t.as_ms().saturating_sub(self.offset_ms))
    }

    /// Give the engine an input; journal it if accepted.
    fn apply(&mut self, t: Time, input: Input) -> Result<(), InputError> {
        let record = self.persist.as_ref().map(|_| input.clone());
        self.engine.handle_input(t, input)?;
        if let (Some(p), Some(input)) = (&self.persist, record) {
            p.append(GameRecord::Input {
                t_ms: t.as_ms(),
                wall_ms: persist::wall_ms(),
                input,
            });
        }
        self.dirty = true;
        Ok(())
    }

    fn note(&mut self, now: Instant, what: &str) {
        let t_ms = self.time(now).as_ms();
        if let Some(log) = &mut self.log {
            log.note(t_ms, persist::wall_ms(), what);
        }
        if let Some(p) = &self.persist {
            p.append(GameRecord::Note {
                t_ms: self.time(now).as_ms(),
                wall_ms: persist::wall_ms(),
                what: what.to_owned(),
            });
        }
    }

    /// A fresh game with `self.engine`'s control: journal compacted to its start.
    fn started_new_game(&mut self, now: Instant) {
        if self
            .log
            .as_ref()
            .is_some_and(|l| l.started() && !l.finished())
        {
            self.write_record(now);
        }
        self.log = self.persist.as_ref().map(|_| {
            GameLog::new(
                &self.state.name,
                &self.state.port,
                &notation::canonical(self.engine.control()),
                persist::wall_ms(),
            )
        });
        if let Some(p) = &self.persist {
            p.new_game(GameStart {
                control: self.engine.control().clone(),
                t_ms: self.time(now).as_ms(),
                wall_ms: persist::wall_ms(),
            });
        }
        // The compacted journal must still say which half is White's.
        self.note(now, &persist::white_side_note(self.options.white_side));
    }

    /// Hand the game's record to the journal writer (it writes PGN + JSON in the background).
    fn write_record(&self, now: Instant) {
        if let (Some(p), Some(log)) = (&self.persist, &self.log) {
            let snap =
                serde_json::to_value(self.engine.snapshot(self.time(now))).unwrap_or_default();
            p.write_record(log.render(&snap));
        }
    }

    async fn run(&mut self) {
        let mut buf = [0u8; 512];
        loop {
            let deadline = self.next_wakeup();
            let wake = {
                let sleep = async {
                    match deadline {
                        Some(d) => tokio::time::sleep_until(d).await,
                        None => std::future::pending().await,
                    }
                };
                match self.port.as_mut() {
                    Some(port) => tokio::select! {
                        r = self.rx.recv() => Wake::Request(r),
                        n = port.read(&mut buf) => Wake::Read(n),
                        () = sleep => Wake::Timer,
                    },
                    None => tokio::select! {
                        r = self.rx.recv() => Wake::Request(r),
                        () = sleep => Wake::Timer,
                    },
                }
            };
            let now = Instant::now();
            match wake {
                Wake::Request(None) => break,
                Wake::Request(Some(env)) => {
                    if env.request == Request::Shutdown {
                        let _ = env.reply.send(Ok(Reply::Done));
                        break;
                    }
                    let answer = self.handle_request(now, env.request);
                    match &self.persist {
                        Some(p) => p.reply_when_durable(env.reply, answer),
                        None => {
                            let _ = env.reply.send(answer);
                        }
                    }
                }
                Wake::Read(Ok(0)) => self.lost(now, "end of file"),
                Wake::Read(Ok(n)) => {
                    let incoming = self.link.feed(&buf[..n]);
                    for msg in incoming {
                        self.handle_incoming(now, msg);
                    }
                }
                Wake::Read(Err(e)) => self.lost(now, &e.to_string()),
                Wake::Timer => {}
            }
            self.service(now).await;
        }
        tracing::info!(clock = self.state.index, "actor stopped");
    }

    fn next_wakeup(&self) -> Option<Instant> {
        let engine = self.engine.poll_timeout().map(|t| self.instant(t));
        let display = self.display_deadline();
        [
            engine,
            display,
            self.resync_at,
            self.queue.deadline(),
            self.probe_next,
            self.reopen_at,
            self.pc_mode_recheck,
            self.text_until,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// When the display may next differ from what the device shows on its own.
    fn display_deadline(&self) -> Option<Instant> {
        if !self.clock_usable() {
            return None;
        }
        let now = Instant::now();
        let engine_refresh = self
            .engine
            .display(self.time(now))
            .next_refresh
            .map(|t| self.instant(t));
        let device_tick = self.pushed.as_ref().and_then(|p| next_device_tick(p, now));
        match (engine_refresh, device_tick) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn clock_usable(&self) -> bool {
        self.port.is_some()
            && matches!(
                self.state.device_state,
                DeviceState::Ready | DeviceState::NotResponding
            )
    }

    // ---- requests ------------------------------------------------------------------------

    fn handle_request(&mut self, now: Instant, req: Request) -> Result<Reply, DeviceError> {
        let t = self.time(now);
        self.engine.handle_timeout(t);
        let input = match req {
            Request::Live => {
                self.refresh_state(now, false);
                return Ok(Reply::State(Box::new(self.state.clone())));
            }
            Request::Shutdown => return Ok(Reply::Done),
            Request::Settings(s) => {
                self.options.transport_latency = s.transport_latency;
                self.options.command_timeout = s.command_timeout;
                self.options.command_retries = s.command_retries;
                self.options.pause_button = s.pause_button;
                self.queue.set_limits(s.command_timeout, s.command_retries);
                return Ok(Reply::Done);
            }
            Request::SetTimeControl(text) => {
                let parsed = notation::parse(&text)
                    .map_err(|e| DeviceError::Invalid(format!("{text:?}: {}", e.message)))?;
                let game_started = self.state.game_state != "ready";
                if game_started {
                    Input::Reconfigure {
                        control: Box::new(parsed.control.clone()),
                    }
                } else {
                    self.engine = Engine::new(parsed.control.clone())
                        .map_err(|e| DeviceError::Invalid(format!("{text:?}: {e}")))?;
                    self.options.time_control = parsed.canonical.clone();
                    self.state.time_control = parsed.canonical;
                    self.started_new_game(now);
                    self.dirty = true;
                    return Ok(Reply::Done);
                }
            }
            Request::Start(side) => Input::Start { side },
            Request::Pause => Input::Pause,
            Request::Resume => Input::Resume,
            Request::Press(side) => Input::Press { side },
            Request::Adjust {
                side,
                field,
                op,
                ms,
            } => Input::Adjust {
                side,
                field,
                op,
                ms,
            },
            Request::SetMoves { side, moves } => Input::SetMoves { side, moves },
            Request::ClaimDraw(side) => Input::ClaimDraw { side },
            Request::SetResult(result) => Input::BoardResult { result },
            Request::NewGame => {
                let control = self.engine.control().clone();
                self.engine =
                    Engine::new(control).map_err(|e| DeviceError::Invalid(e.to_string()))?;
                self.started_new_game(now);
                self.emit(ClockEvent::StateChanged {
                    old: self.state.game_state.clone(),
                    new: "ready".into(),
                    reason: "new_game".into(),
                });
                self.dirty = true;
                return Ok(Reply::Done);
            }
            Request::ShowText { text, ms } => {
                let cmd = link::text(self.link.model(), &text, false);
                self.queue.push(cmd);
                self.text_until = Some(now + Duration::from_millis(u64::from(ms)));
                return Ok(Reply::Done);
            }
            Request::Beep(ms) => {
                self.queue.push(link::beep(ms));
                return Ok(Reply::Done);
            }
            Request::SetWhiteSide(side) => {
                self.options.white_side = side;
                self.state.white_side = side;
                self.note(now, &persist::white_side_note(side));
                self.dirty = true;
                return Ok(Reply::Done);
            }
        };
        let is_reconfigure = matches!(input, Input::Reconfigure { .. });
        self.apply(t, input)
            .map_err(|e| DeviceError::NotAllowed(e.to_string()))?;
        if is_reconfigure {
            self.state.time_control = notation::canonical(self.engine.control());
            if let Some(log) = &mut self.log {
                log.set_control(&self.state.time_control);
            }
        }
        self.dirty = true;
        Ok(Reply::Done)
    }

    // ---- the board -----------------------------------------------------------------------

    fn handle_incoming(&mut self, now: Instant, msg: Incoming) {
        match msg {
            Incoming::BoardVersion { .. } => {
                if self.probe_next.take().is_some() {
                    tracing::info!(clock = self.state.index, "board answered the handshake");
                    self.send_raw(link::board_serial_request());
                    self.queue.push(link::clock_version());
                }
            }
            Incoming::BoardSerial(serial) => {
                self.state.board_serial = serial;
            }
            Incoming::ClockVersion { model, firmware } => {
                self.link.set_model(model);
                self.state.model = model.name().to_owned();
                self.state.firmware = firmware;
                self.set_device_state(DeviceState::Ready);
                self.dirty = true;
            }
            Incoming::Ack(ack) => self.handle_ack(now, ack),
            Incoming::Button(code) => self.handle_button(now, code),
            Incoming::Report(r) => {
                if r.no_clock {
                    self.set_device_state(DeviceState::NoClock);
                    return;
                }
                if self.link.model() == Model::Unknown && !self.queue.busy() {
                    // A clock switched on after the probe: ask it who it is.
                    self.queue.push(link::clock_version());
                }
                if self.state.device_state == DeviceState::NoClock {
                    self.set_device_state(DeviceState::Probing);
                }
                self.handle_lever(now, r.right_high, r.running);
            }
            Incoming::Other => {}
        }
    }

    fn handle_ack(&mut self, now: Instant, ack: [u8; 4]) {
        match self.queue.on_ack(now, ack) {
            AckOutcome::Completed(kind) => {
                if kind == Kind::Version
                    && let Some((model, firmware)) = link::clock_version_from_ack(ack)
                {
                    self.handle_incoming(now, Incoming::ClockVersion { model, firmware });
                }
                if kind == Kind::SetAndRun
                    && matches!(
                        self.state.device_state,
                        DeviceState::NotInPcMode | DeviceState::NotResponding
                    )
                {
                    self.set_device_state(DeviceState::Ready);
                    self.pc_mode_recheck = None;
                }
            }
            AckOutcome::Refused(kind) => {
                if kind == Kind::SetAndRun {
                    let option = match self.link.model() {
                        Model::DgtXl => "option 23",
                        _ => "option 25 (DGT XL: option 23)",
                    };
                    tracing::warn!(
                        clock = self.state.index,
                        "the clock refused set-and-run: it is not in PC mode; select {option} on \
                         the clock"
                    );
                    self.set_device_state(DeviceState::NotInPcMode);
                    self.pc_mode_recheck = Some(now + PC_MODE_RECHECK);
                }
            }
            AckOutcome::Duplicate | AckOutcome::Unmatched => {}
        }
    }

    fn handle_button(&mut self, now: Instant, code: u8) {
        if code != link::BUTTON_RUN || !self.options.pause_button {
            return;
        }
        let t = self.time(now);
        let input = match self.state.game_state.as_str() {
            "running" => Input::Pause,
            "paused" => Input::Resume,
            _ => return,
        };
        if let Err(e) = self.apply(t, input) {
            tracing::debug!(clock = self.state.index, "run button ignored: {e}");
        }
    }

    /// A lever change is a press by the side whose half went down.
    fn handle_lever(&mut self, now: Instant, right_high: bool, _running: bool) {
        let previous = self.lever_right_high.replace(right_high);
        let Some(previous) = previous else { return };
        if previous == right_high {
            return;
        }
        // Right half up now: the left player ended a move.
        let pressed_half = if right_high {
            BoardSide::Left
        } else {
            BoardSide::Right
        };
        let side = if pressed_half == self.options.white_side {
            Side::White
        } else {
            Side::Black
        };
        let at = now
            .checked_sub(self.options.transport_latency)
            .unwrap_or(now)
            .max(self.epoch);
        let t = self.time(at);
        if let Err(e) = self.apply(t, Input::Press { side }) {
            tracing::debug!(clock = self.state.index, "lever ignored: {e}");
        }
    }

    fn lost(&mut self, now: Instant, why: &str) {
        if self.port.take().is_some() {
            tracing::warn!(
                clock = self.state.index,
                "{} is gone ({why}); the game goes on, reopening every {:?}",
                self.path.display(),
                self.options.reopen_interval
            );
        }
        self.note(now, &format!("disconnected: {why}"));
        self.queue.reset_link();
        self.link = Link::default();
        self.pushed = None;
        self.lever_right_high = None;
        self.state.connected = false;
        self.set_device_state(DeviceState::Disconnected);
        self.reopen_at = Some(now + self.options.reopen_interval);
        self.probe_next = None;
    }

    fn try_reopen(&mut self, now: Instant) {
        match port::open_tty(&self.path) {
            Ok(stream) => {
                tracing::info!(clock = self.state.index, "{} is back", self.path.display());
                self.note(now, "reconnected");
                self.port = Some(stream);
                self.reopen_at = None;
                self.state.connected = true;
                self.set_device_state(DeviceState::Probing);
                self.probe_next = Some(now);
                self.probe_attempts = 0;
                self.dirty = true;
            }
            Err(e) => {
                tracing::debug!(clock = self.state.index, "reopen failed: {e}");
                self.reopen_at = Some(now + self.options.reopen_interval);
            }
        }
    }

    // ---- after every wake-up -------------------------------------------------------------

    async fn service(&mut self, now: Instant) {
        let t = self.time(now);
        self.engine.handle_timeout(t);
        self.drain_events(now);
        if self.reopen_at.is_some_and(|at| at <= now) {
            self.try_reopen(now);
        }
        if self.probe_next.is_some_and(|at| at <= now) && self.port.is_some() {
            self.probe_attempts += 1;
            if self.probe_attempts > 1 {
                tracing::debug!(
                    clock = self.state.index,
                    "board handshake, attempt {}",
                    self.probe_attempts
                );
            }
            self.send_raw(link::handshake());
            self.probe_next = Some(now + PROBE_INTERVAL);
        }
        if let Some(outcome) = self.queue.poll_timeout(now) {
            match outcome {
                TimeoutOutcome::Resend(bytes) => self.send_raw(bytes),
                TimeoutOutcome::GaveUp(kind) => {
                    tracing::warn!(
                        clock = self.state.index,
                        "the clock did not acknowledge {kind:?} after {} tries",
                        self.options.command_retries + 1
                    );
                    if self.state.device_state != DeviceState::NoClock {
                        self.set_device_state(DeviceState::NotResponding);
                    }
                }
            }
        }
        if self.pc_mode_recheck.is_some_and(|at| at <= now) {
            self.pc_mode_recheck = Some(now + PC_MODE_RECHECK);
            self.dirty = true;
        }
        if self.text_until.is_some_and(|at| at <= now) {
            self.text_until = None;
            self.queue.push(link::end());
            self.dirty = true;
        }
        let changed = self.dirty;
        self.update_display(now);
        self.show_announcement(now);
        if let Some(bytes) = self.queue.poll_send(now) {
            self.send_raw(bytes);
        }
        self.flush().await;
        self.refresh_state(now, changed);
    }

    fn update_display(&mut self, now: Instant) {
        if !self.clock_usable() && self.state.device_state != DeviceState::NotInPcMode {
            return;
        }
        if self.text_until.is_some() {
            return;
        }
        let t = self.time(now);
        let d = self.engine.display(t);
        let wanted = face(d.white_s, d.black_s, d.counting, self.options.white_side);
        let resync_due = self.resync_at.is_some_and(|at| at <= now);
        let differs = self
            .pushed
            .as_ref()
            .is_none_or(|p| predicted(p, now) != wanted);
        if !(self.dirty || resync_due || differs) {
            return;
        }
        self.push_face(now, wanted, d.ms_to_next_second);
    }

    fn push_face(&mut self, now: Instant, wanted: Face, ms_to_next_second: Option<u64>) {
        self.queue.push(link::set_and_run(wanted));
        self.pushed = Some(Pushed {
            face: wanted,
            at: now,
        });
        self.dirty = false;
        // The device starts its own second now; the engine's next whole second may be sooner.
        // Push once more at that instant so both tick together.
        self.resync_at = match ms_to_next_second {
            Some(ms) if ms > 0 && ms < 1000 && self.resync_at.is_none_or(|at| at <= now) => {
                Some(now + Duration::from_millis(ms))
            }
            _ => None,
        };
    }

    /// Show the latest game event as text, after the times it changed have been pushed (the
    /// device keeps counting behind the text); the times come back after
    /// [`announce::SHOW_FOR`].
    fn show_announcement(&mut self, now: Instant) {
        if !self.clock_usable() {
            self.announcements.clear();
            return;
        }
        if self.text_until.is_some() {
            return;
        }
        let Some(a) = self.announcements.pop_front() else {
            return;
        };
        if a.beep {
            self.queue.push(link::beep(1000));
        }
        self.queue
            .push(link::text(self.link.model(), &a.text, false));
        self.text_until = Some(now + announce::SHOW_FOR);
    }

    fn drain_events(&mut self, now: Instant) {
        let (t_ms, wall_ms) = (self.time(now).as_ms(), persist::wall_ms());
        let mut finished = false;
        while let Some(ev) = self.engine.poll_event() {
            self.dirty = true;
            if let Some(a) = announce::announce(&ev, self.link.model()) {
                // Keep the latest few; a backlog of stale news helps nobody.
                if self.announcements.len() == MAX_ANNOUNCEMENTS {
                    self.announcements.pop_front();
                }
                self.announcements.push_back(a);
            }
            if let Event::Flag { side, reason } = &ev {
                self.note(now, &format!("flag {} {reason}", side.as_str()));
            }
            let Some(ev) = clock_event(ev) else { continue };
            if let Some(log) = &mut self.log {
                log.event(t_ms, wall_ms, &ev);
                finished |= matches!(ev, ClockEvent::Result { .. });
            }
            self.emit(ev);
        }
        if finished {
            self.write_record(now);
        }
    }

    fn emit(&self, ev: ClockEvent) {
        tracing::debug!(clock = self.state.index, ?ev, "event");
        let _ = self.events.send(ev);
    }

    fn set_device_state(&mut self, s: DeviceState) {
        if self.state.device_state != s {
            tracing::info!(
                clock = self.state.index,
                "device state {} -> {}",
                self.state.device_state.as_str(),
                s.as_str()
            );
            self.state.device_state = s;
            if s == DeviceState::Ready {
                self.dirty = true;
            }
        }
    }

    /// Recompute the state; publish it if `changed` or anything besides the ticking times
    /// differs from what was last published.
    fn refresh_state(&mut self, now: Instant, changed: bool) {
        let snap = self.engine.snapshot(self.time(now));
        let json = serde_json::to_value(&snap).unwrap_or_default();
        let game_state = json
            .get("status")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("ready")
            .to_owned();
        self.state.game_state = game_state;
        self.state.snapshot = json;
        self.state.as_of_us = monotonic_us().saturating_sub(
            u64::try_from(Instant::now().saturating_duration_since(now).as_micros()).unwrap_or(0),
        );
        let state = self.state.clone();
        self.state_tx.send_if_modified(|cur| {
            // Times move continuously; publish only when something besides them changed,
            // or the snapshot differs (an event happened).
            let publish = changed || !same_except_time(cur, &state);
            if publish {
                *cur = state;
            }
            publish
        });
    }

    // ---- writing -------------------------------------------------------------------------

    fn send_raw(&mut self, bytes: Vec<u8>) {
        self.link.queue_write(bytes);
    }

    async fn flush(&mut self) {
        let Some(port) = self.port.as_mut() else {
            self.link.clear_writes();
            return;
        };
        let pending = self.link.take_writes();
        if pending.is_empty() {
            return;
        }
        let write = async {
            port.write_all(&pending).await?;
            port.flush().await
        };
        match tokio::time::timeout(WRITE_TIMEOUT, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.lost(Instant::now(), &e.to_string()),
            Err(_) => self.lost(Instant::now(), "write timed out"),
        }
    }
}

/// Whether two states differ only in the running clock's elapsed time: the snapshot's
/// values that tick (ms counts and texts) are ignored, everything else compared.
fn same_except_time(a: &ClockState, b: &ClockState) -> bool {
    fn strip(v: &serde_json::Value) -> serde_json::Value {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            for k in ["t_ms", "white_ms", "black_ms", "text", "detail"] {
                o.remove(k);
            }
        }
        v
    }
    a.index == b.index
        && a.name == b.name
        && a.port == b.port
        && a.model == b.model
        && a.firmware == b.firmware
        && a.board_serial == b.board_serial
        && a.connected == b.connected
        && a.device_state == b.device_state
        && a.game_state == b.game_state
        && a.time_control == b.time_control
        && a.white_side == b.white_side
        && strip(&a.snapshot) == strip(&b.snapshot)
}

/// The bus event for an engine event; phase changes are shown on the clock and in the
/// snapshot, not signalled.
fn clock_event(ev: Event) -> Option<ClockEvent> {
    Some(match ev {
        Event::StatusChanged { old, new, reason } => ClockEvent::StateChanged {
            old: old.to_string(),
            new: new.to_string(),
            reason,
        },
        Event::Pressed {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        } => ClockEvent::Pressed {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        },
        Event::Flag { side, reason } => ClockEvent::Flag { side, reason },
        Event::Result { result, reason } => ClockEvent::Result {
            result: result.to_string(),
            reason,
        },
        Event::PhaseChanged { .. } => return None,
    })
}
