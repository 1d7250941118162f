//! The device actor loop: serial reads, operator requests and timers in one `select!`.
//!
//! A thin IO shell around three pure state machines: the board [`Driver`] (the link: probe,
//! clock command queue, keep-alive, lever decoding, the wire side of the display), the
//! game [`Engine`] and the board's game (`BoardGame`, moves from the pieces). It owns the
//! port (any [`BoardIo`]: a tty, or an in-memory stream to the virtual board), reads bytes and
//! stamps them with the time they arrived, feeds the driver, writes what the driver polls out
//! and sleeps until the earliest deadline. It is the only place where wall time (tokio's
//! monotonic clock) meets the pure layers: `now` is read once per wake-up and passed down. It
//! must not hold game or link rules itself. Its work is split by direction: [`start`] (opening
//! the port, resuming the journal, the first state), [`requests`] (operators), [`board`] (what
//! the driver reports; a port that vanished and came back), [`pieces`] (the board's game:
//! moves, game information, PGN, the live file), [`output`] (engine events, what the clock must
//! show, the published state, writes).

mod board;
mod output;
mod pieces;
#[cfg(test)]
mod replug_tests;
mod requests;
mod start;
#[cfg(test)]
mod tests;

pub(super) use start::spawn;

use std::collections::VecDeque;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use super::DeviceOptions;
use super::announce::Announcement;
use super::board_game::BoardGame;
use super::driver::{self, Driver};
use super::handle::{ClockEvent, ClockState, Envelope, Reply, Request};
use super::observe::{Mode, Observed};
use super::persist::{self, GameRecord, GameStart, Persist};
use super::port::{BoardIo, Opener};
use super::record::GameLog;
use crate::engine::notation;
use crate::engine::{Engine, Input, InputError, Time};

/// Game events waiting to be shown as text, at most.
const MAX_ANNOUNCEMENTS: usize = 3;

struct Actor<P> {
    options: DeviceOptions,
    /// The byte stream to the board (`None` while it is gone).
    port: Option<P>,
    /// Opens the stream again after a loss.
    open: Opener<P>,
    /// The board link's state machine; its time is the duration since `epoch`.
    driver: Driver,
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
    /// When to try to reopen a vanished port (the one deadline the IO shell keeps itself).
    reopen_at: Option<Instant>,
    /// Game events to show as text, one after another, once the times have been pushed.
    announcements: VecDeque<Announcement>,
    /// The display must be pushed (state changed).
    dirty: bool,
    /// The display must be pushed again although nothing changed (a re-sync instant, the
    /// clock became usable, text ended): not a state change, so nothing is published.
    refresh: bool,
    /// The game on the board's pieces.
    board_game: BoardGame,
    /// The live PGN must be rewritten.
    pgn_dirty: bool,
    /// Something besides the running time changed: publish the state at the end of the
    /// wake-up even where `output::same_except_time` sees no difference (an arbiter's adjustment).
    publish: bool,
    /// Observe mode: what the clock's reports said (unused in drive mode).
    observed: Observed,
    /// The serial number of the board this game is played on, as the journal knows it.
    journal_serial: Option<String>,
    /// Kept alive as long as the actor (a virtual clock's in-memory board).
    _keep: Option<Box<dyn Send>>,
}

enum Wake {
    Request(Option<Envelope>),
    Read(std::io::Result<usize>),
    Timer,
}

impl<P: BoardIo> Actor<P> {
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

    /// `now` on the driver's time line (since `epoch`).
    fn at(&self, now: Instant) -> driver::Instant {
        driver::Instant::from_epoch(now.saturating_duration_since(self.epoch))
    }

    /// Engine time of a driver instant.
    fn time_at(&self, at: driver::Instant) -> Time {
        Time::from_ms(at.as_ms().saturating_add(self.offset_ms))
    }

    /// Whether the clock runs its own mode and is only followed.
    fn observing(&self) -> bool {
        self.state.mode == Mode::Observe
    }

    /// `side`'s clock at `t`: the engine's value, or in observe mode the clock's report.
    fn clock_value(&self, side: crate::engine::Side, t: Time) -> u64 {
        match self.observed.value(side, self.options.white_side) {
            Some(v) if self.observing() => v,
            _ => self.engine.snapshot(t).value(side),
        }
    }

    /// The game or device state changed: push the display and publish the state.
    fn state_changed(&mut self) {
        self.dirty = true;
        self.publish = true;
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
        self.state_changed();
        Ok(())
    }

    /// Note something external (connect, disconnect, white side) in the journal and in the
    /// game's record.
    fn note(&mut self, now: Instant, what: &str) {
        let (t_ms, wall_ms) = (self.time(now).as_ms(), persist::wall_ms());
        if let Some(log) = &mut self.log {
            log.note(t_ms, wall_ms, what);
        }
        self.journal_note(t_ms, wall_ms, what);
    }

    /// Note something in the journal only (the record has it as an event already).
    fn journal_note(&self, t_ms: u64, wall_ms: u64, what: &str) {
        if let Some(p) = &self.persist {
            p.append(GameRecord::Note {
                t_ms,
                wall_ms,
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
        // The compacted journal must still say which half is White's, and on which board.
        self.note(now, &persist::white_side_note(self.options.white_side));
        if let Some(serial) = self.journal_serial.clone() {
            self.journal_note(
                self.time(now).as_ms(),
                persist::wall_ms(),
                &persist::board_serial_note(&serial),
            );
        }
        // What was said about the last game is no longer news.
        if !self.state.notices.is_empty() {
            self.state.notices.clear();
            self.publish = true;
        }
    }

    /// Hand the game's record to the journal writer (it writes PGN + JSON in the background).
    /// With moves read from the board, the PGN is the board's game (SAN with the clocks).
    fn write_record(&self, now: Instant) {
        if let (Some(p), Some(log)) = (&self.persist, &self.log) {
            let mut record = log.render(Some(&self.snapshot(now)));
            if !self.board_game.moves().is_empty() {
                record.pgn = self.pgn(now);
            }
            p.write_record(record);
        }
    }

    async fn run(&mut self) {
        let mut buf = [0u8; 512];
        let mut now = Instant::now();
        loop {
            let deadline = self.next_wakeup(now);
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
            now = Instant::now();
            match wake {
                Wake::Request(None) => break,
                Wake::Request(Some(env)) => {
                    if env.request == Request::Shutdown {
                        let _ = env.reply.send(Ok(Reply::Done));
                        break;
                    }
                    let read_only = env.request.is_read_only();
                    let answer = self.handle_request(now, env.request);
                    match &self.persist {
                        Some(p) if !read_only => p.reply_when_durable(env.reply, answer),
                        _ => {
                            let _ = env.reply.send(answer);
                        }
                    }
                }
                Wake::Read(Ok(0)) => self.lost(now, "end of file"),
                Wake::Read(Ok(n)) => {
                    let at = self.at(now);
                    self.driver.handle_input(at, &buf[..n]);
                }
                Wake::Read(Err(e)) => self.lost(now, &e.to_string()),
                Wake::Timer => {}
            }
            self.service(now).await;
        }
        tracing::info!(clock = self.state.index, "actor stopped");
    }

    /// The earliest deadline of engine, display, driver and reopen, as seen at `now` (the
    /// last wake-up).
    fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        let engine = self.engine.poll_timeout().map(|t| self.instant(t));
        let link = self
            .driver
            .poll_timeout()
            .map(|at| self.epoch + at.since_epoch());
        [
            engine,
            self.display_deadline(now),
            link,
            self.reopen_at,
            self.board_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// When the engine's display value next changes (the device's own ticks are the
    /// driver's deadlines).
    fn display_deadline(&self, now: Instant) -> Option<Instant> {
        if !self.driver.clock_usable() {
            return None;
        }
        self.engine
            .display(self.time(now))
            .next_refresh
            .map(|t| self.instant(t))
    }
}
