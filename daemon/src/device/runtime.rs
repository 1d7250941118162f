//! The device actors' own runtime: one worker thread that does nothing but read ttys, stamp
//! presses and push displays, so that no amount of bus work (128 clocks' properties read back
//! to back, signal fan-out) delays reading a board (issue 11 item 2).
//!
//! Owns that thread's lifetime only. Actors are started on it by running `device::spawn` on
//! its handle (their port is registered with its reactor, their timers with its clock); they
//! talk to the bus side through channels, which work across runtimes. It must not run bus or
//! supervisor work.

use std::future::Future;

use tokio::runtime::{Builder, Handle, Runtime};

/// A dedicated runtime for device actors.
#[derive(Debug)]
pub struct DeviceRuntime {
    runtime: Option<Runtime>,
}

impl DeviceRuntime {
    /// Start its worker thread (`chessclock-dev`).
    pub fn start() -> std::io::Result<DeviceRuntime> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("chessclock-dev")
            .enable_all()
            .build()?;
        Ok(DeviceRuntime {
            runtime: Some(runtime),
        })
    }

    /// Where device actors are started.
    pub fn handle(&self) -> Option<Handle> {
        self.runtime.as_ref().map(|rt| rt.handle().clone())
    }

    /// Stop it without waiting (the actors have been stopped by then); safe to call from
    /// inside another runtime, which dropping a runtime is not.
    pub fn shutdown(mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Drop for DeviceRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// Run `fut` on `rt` when given (what it spawns lands there), else right here. `Err`: the
/// device runtime is stopping, or the task panicked (said in words).
pub(crate) async fn run_on<F>(rt: Option<&Handle>, fut: F) -> Result<F::Output, String>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match rt {
        Some(rt) => rt
            .spawn(fut)
            .await
            .map_err(|e| format!("the device runtime could not start the clock: {e}")),
        None => Ok(fut.await),
    }
}
