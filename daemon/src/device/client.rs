//! The handle through which everything outside a device actor talks to it (InputPlumber's
//! per-actor `client.rs`): a [`DeviceHandle`] is cheap to clone and holds no lock. Requests
//! go over a channel as an [`Envelope`] with a oneshot reply (the actor forwards them to its
//! session, which gives each its meaning); the state comes from a watch channel the actor
//! publishes the session's state to; events from a broadcast channel.
//!
//! Owns the channels' ends and the wait for an answer, nothing else: the requests, replies
//! and events are the session's types (`session::interface`); it must not decide anything
//! about a request.

use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot, watch};

use chessclock_device::session::interface::{ClockEvent, ClockState, DeviceError, Reply, Request};

/// A request with its reply channel.
#[derive(Debug)]
pub struct Envelope {
    /// The request.
    pub request: Request,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Result<Reply, DeviceError>>,
}

/// How long a caller waits for an actor's answer before reporting a stuck actor.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// Cloneable handle to one device actor.
#[derive(Debug, Clone)]
pub struct DeviceHandle {
    tx: mpsc::Sender<Envelope>,
    state: watch::Receiver<ClockState>,
    events: broadcast::Sender<ClockEvent>,
}

impl DeviceHandle {
    /// Wrap the actor's channels.
    pub fn new(
        tx: mpsc::Sender<Envelope>,
        state: watch::Receiver<ClockState>,
        events: broadcast::Sender<ClockEvent>,
    ) -> Self {
        DeviceHandle { tx, state, events }
    }

    /// The latest published state, borrowed: read what is needed and let go (the actor
    /// waits to publish while it is held). Never hold it across an await.
    pub fn borrow_state(&self) -> watch::Ref<'_, ClockState> {
        self.state.borrow()
    }

    /// Send a request and wait for it to be done.
    pub async fn request(&self, request: Request) -> Result<(), DeviceError> {
        self.ask(request).await.map(|_| ())
    }

    /// The game so far as PGN.
    pub async fn pgn(&self) -> Result<String, DeviceError> {
        match self.ask(Request::Pgn).await? {
            Reply::Pgn(p) => Ok(p),
            _ => Err(DeviceError::Device(
                "the clock did not answer with a PGN".into(),
            )),
        }
    }

    /// The live state: the snapshot computed at the moment the actor answers.
    pub async fn live(&self) -> Result<ClockState, DeviceError> {
        match self.ask(Request::Live).await? {
            Reply::State(s) => Ok(*s),
            Reply::Done | Reply::Pgn(_) => Ok(self.state()),
        }
    }

    async fn ask(&self, request: Request) -> Result<Reply, DeviceError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Envelope { request, reply })
            .await
            .map_err(|_| DeviceError::Gone)?;
        match tokio::time::timeout(REPLY_TIMEOUT, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(DeviceError::Gone),
            Err(_) => {
                tracing::error!("device actor did not answer within {REPLY_TIMEOUT:?}");
                Err(DeviceError::Device(
                    "the clock's actor did not answer in time; see the daemon log".into(),
                ))
            }
        }
    }

    /// The latest published state.
    pub fn state(&self) -> ClockState {
        self.state.borrow().clone()
    }

    /// A receiver of state changes.
    pub fn watch_state(&self) -> watch::Receiver<ClockState> {
        self.state.clone()
    }

    /// Wait, at most `within`, until the board on the port has answered
    /// ([`DeviceState::board_answered`](chessclock_api::DeviceState::board_answered)); whether
    /// it did.
    pub async fn answered(&self, within: Duration) -> bool {
        let mut state = self.watch_state();
        let probed = state.wait_for(|s| s.device_state.board_answered());
        matches!(tokio::time::timeout(within, probed).await, Ok(Ok(_)))
    }

    /// A receiver of events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ClockEvent> {
        self.events.subscribe()
    }

    /// Whether the actor has stopped.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}
