//! The device actor loop: serial reads, operator requests and timers in one `select!`.
//!
//! A thin IO shell around the pure [`Session`], quinn's way: it owns the port (any
//! [`BoardIo`]), the journal, the live files and the search worker; it feeds the session
//! bytes stamped with the time they arrived, requests, wake-ups and what happened to the
//! port ([`Session::handle_event`]), then writes, journals, publishes and files what it polls
//! out, and sleeps until the earliest deadline. `now` (and the wall time of a journaled game)
//! is read once per wake-up and passed down. It decides nothing about the game: only
//! `Shutdown` and `Detach`, which stop the loop, are its own. [`start`]: the journal read
//! and the session resumed; [`reconnect`]: a port lost and reopened; [`output`]: what the
//! session says.

pub(crate) mod output;
mod reconnect;
mod start;
#[cfg(test)]
mod tests;

pub(crate) use start::{Started, spawn};

use tokio::io::AsyncReadExt;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use super::live::LiveFiles;
use super::persist::{self, Archive, GameStart, Persist};
use super::port::{BoardIo, Opener};
use crate::device::client::Envelope;
use crate::device::options::DeviceOptions;
use chessclock_device::link::driver;
use chessclock_device::session::interface::{ClockEvent, ClockState, DeviceError, Reply, Request};
use chessclock_device::session::{RecordDue, Session, ShellEvent};

struct Actor<P> {
    /// The clock's index and port label, for log lines.
    clock: u32,
    label: String,
    /// The options it was started with; of these the actor reads the state directory and
    /// the reopen interval (the game's settings live in the session).
    options: DeviceOptions,
    /// The byte stream to the board (`None` while it is gone).
    port: Option<P>,
    /// Opens the stream again after a loss.
    open: Opener<P>,
    /// The game over the link (pure); its time is the duration since `epoch`.
    session: Session,
    epoch: Instant,
    /// The game's journal (`None`: not journaled).
    persist: Option<Persist>,
    /// Where the live PGN files go.
    live: LiveFiles,
    /// Runs the session's searches off the device thread; their answers come back on
    /// `answers`.
    searcher: super::search::Searcher,
    answers_tx: tokio::sync::mpsc::UnboundedSender<super::search::Answer>,
    answers: tokio::sync::mpsc::UnboundedReceiver<super::search::Answer>,
    state_tx: watch::Sender<ClockState>,
    events: broadcast::Sender<ClockEvent>,
    rx: mpsc::Receiver<Envelope>,
    /// When to try to reopen a vanished port (the one deadline the IO shell keeps itself).
    reopen_at: Option<Instant>,
    /// Kept alive as long as the actor (a virtual clock's in-memory board).
    _keep: Option<Box<dyn Send>>,
}

enum Wake {
    Request(Option<Envelope>),
    Verdict(Option<super::search::Answer>),
    Read(std::io::Result<usize>),
    Timer,
}

impl<P: BoardIo> Actor<P> {
    /// `now` on the session's time line (since `epoch`).
    fn at(&self, now: Instant) -> driver::Instant {
        driver::Instant::from_epoch(now.saturating_duration_since(self.epoch))
    }

    /// The session started a new game on `control` at engine time `t_ms`: the journal is
    /// compacted to the new game's start (the notes it must keep follow as the session's
    /// events).
    fn started_new_game(
        &mut self,
        control: crate::engine::params::TimeControl,
        t_ms: u64,
        game_id: String,
    ) {
        if let Some(p) = &self.persist {
            p.new_game(GameStart {
                control,
                t_ms,
                wall_ms: persist::wall_ms(),
                game_id: Some(game_id),
            });
        }
    }

    /// Have the journal writer write the game's record the session says is due (PGN +
    /// JSON, folded from the journal) in the background.
    fn write_record(&self, due: RecordDue) {
        if let Some(p) = &self.persist {
            let archive = Archive {
                name: due.name,
                port: due.port,
                snapshot: due.snapshot,
                board: due.board,
                info: due.info,
                under_way_only: due.under_way_only,
            };
            p.write_record(archive, due.round);
        }
    }

    /// The clock is detached: its game goes to `games/` (one under way as it stood, with a
    /// note saying so: the session's answer to [`Request::Detach`]), then its journal and snapshot are
    /// removed, and `reply` is answered once they are gone. A daemon that stops
    /// ([`Request::Shutdown`]) keeps them.
    fn retire(
        &mut self,
        now: Instant,
        reply: tokio::sync::oneshot::Sender<Result<Reply, DeviceError>>,
    ) {
        let _ = self.session.handle_request(self.at(now), Request::Detach);
        self.drain_session(now);
        match self.persist.take() {
            Some(p) => p.retire(reply, Ok(Reply::Done)),
            None => {
                let _ = reply.send(Ok(Reply::Done));
            }
        }
    }

    async fn run(&mut self) {
        let mut buf = [0u8; 512];
        loop {
            // What the last wake-up (or the start) gave the journal goes to its writer in
            // one message before the actor sleeps.
            if let Some(p) = &self.persist {
                p.flush();
            }
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
                        v = self.answers.recv() => Wake::Verdict(v),
                        () = sleep => Wake::Timer,
                    },
                    None => tokio::select! {
                        r = self.rx.recv() => Wake::Request(r),
                        v = self.answers.recv() => Wake::Verdict(v),
                        () = sleep => Wake::Timer,
                    },
                }
            };
            let now = Instant::now();
            // The wall time the game's record needs (its date), for a journaled game only.
            let wall_ms = self.persist.is_some().then(persist::wall_ms);
            self.session
                .handle_event(self.at(now), ShellEvent::Wall(wall_ms));
            match wake {
                Wake::Request(None) => break,
                Wake::Request(Some(env)) => {
                    if matches!(env.request, Request::Shutdown) {
                        let _ = env.reply.send(Ok(Reply::Done));
                        break;
                    }
                    if matches!(env.request, Request::Detach) {
                        self.retire(now, env.reply);
                        break;
                    }
                    let read_only = env.request.is_read_only();
                    let answer = self.session.handle_request(self.at(now), env.request);
                    // The journal gets what the request did before its answer waits on it.
                    self.drain_session(now);
                    match &self.persist {
                        Some(p) if !read_only => p.reply_when_durable(env.reply, answer),
                        _ => {
                            let _ = env.reply.send(answer);
                        }
                    }
                }
                Wake::Read(Ok(0)) => self.lost(now, "end of file"),
                Wake::Read(Ok(n)) => self.session.handle_input(self.at(now), &buf[..n]),
                Wake::Read(Err(e)) => self.lost(now, &e.to_string()),
                Wake::Verdict(Some((id, judgement))) => {
                    let event = ShellEvent::Verdict { id, judgement };
                    self.session.handle_event(self.at(now), event);
                }
                // The actor holds a sender itself: never closed while it runs.
                Wake::Verdict(None) | Wake::Timer => {}
            }
            self.service(now).await;
        }
        tracing::info!(clock = self.clock, "actor stopped");
    }

    /// The earliest deadline of the session and of reopening the port.
    fn next_wakeup(&self) -> Option<Instant> {
        let session = self
            .session
            .poll_timeout()
            .map(|at| self.epoch + at.since_epoch());
        [session, self.reopen_at].into_iter().flatten().min()
    }
}
