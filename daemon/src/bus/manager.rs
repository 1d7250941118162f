//! The `org.chessclockd.ChessClock1.Manager` interface at `/org/chessclockd/ChessClock1`.
//!
//! Holds a [`SupervisorHandle`] only; attaching and detaching happen in the supervisor task,
//! which owns the clock objects.

use zbus::interface;
use zbus::object_server::SignalEmitter;
use zbus::{ObjectPath, OwnedObjectPath};

use super::error::BusError;
use crate::supervisor::SupervisorHandle;

/// The manager object.
#[derive(Debug)]
pub struct ManagerIface {
    sup: SupervisorHandle,
}

impl ManagerIface {
    /// Serve the supervisor on the bus.
    pub fn new(sup: SupervisorHandle) -> Self {
        ManagerIface { sup }
    }
}

#[interface(name = "org.chessclockd.ChessClock1.Manager")]
impl ManagerIface {
    /// Daemon version.
    #[zbus(property(emits_changed_signal = "const"))]
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }

    /// Object paths of the attached clocks, by index.
    #[zbus(property)]
    fn clocks(&self) -> Vec<OwnedObjectPath> {
        self.sup.clock_paths()
    }

    /// Attach the DGT board at tty `port` (e.g. /dev/ttyACM0); returns the clock's path.
    async fn attach(&self, port: &str) -> Result<OwnedObjectPath, BusError> {
        self.sup.attach(port).await
    }

    /// Detach a clock. Its game is kept in the journal; the object disappears.
    async fn detach(&self, clock: ObjectPath<'_>) -> Result<(), BusError> {
        self.sup.detach(clock.as_str()).await
    }

    /// Add a clock backed by the built-in emulator (a DGT board with a DGT 3000 on a pty),
    /// for demos and training; returns the clock's path.
    async fn add_virtual(&self, name: &str) -> Result<OwnedObjectPath, BusError> {
        self.sup.add_virtual(name).await
    }

    /// Emitted when a clock is attached (also visible through ObjectManager).
    #[zbus(signal)]
    pub async fn clock_added(
        emitter: &SignalEmitter<'_>,
        clock: ObjectPath<'_>,
    ) -> zbus::Result<()>;

    /// Emitted when a clock is detached.
    #[zbus(signal)]
    pub async fn clock_removed(
        emitter: &SignalEmitter<'_>,
        clock: ObjectPath<'_>,
    ) -> zbus::Result<()>;
}
