//! The device actors' own runtime: one thread that does nothing but read ttys, stamp
//! presses and push displays, so that no amount of bus work (128 clocks' properties read back
//! to back, signal fan-out) delays reading a board (issue 11 item 2).
//!
//! Owns that thread's lifetime and its precedence: the daemon's other threads lower their
//! own priority below it ([`defer_to_devices`]). Actors are started on it by running
//! `device::spawn` on its handle (their port is registered with its reactor, their timers
//! with its clock); they talk to the bus side through channels, which work across runtimes.
//! It must not run bus or supervisor work.

use std::future::Future;

use tokio::runtime::{Builder, Handle};
use tokio::sync::oneshot;

/// How much lower than the device thread the daemon's other threads run (a nice value
/// added to theirs): on a loaded machine the device thread, which stamps presses and pushes
/// displays, is given the CPU before the bus, the journal writer and the live writer.
const DEFER_NICE: i32 = 5;

/// Lower the calling thread's priority below the device thread's ([`DEFER_NICE`]). Raising
/// one's own nice value needs no privilege; a refusal is logged and changes nothing else.
/// Threads the caller starts afterwards inherit it (the device thread is started before).
pub fn defer_to_devices(thread: &str) {
    // On Linux the nice value is per thread: `None` is the calling thread.
    let raised = rustix::process::getpriority_process(None)
        .and_then(|nice| rustix::process::setpriority_process(None, nice + DEFER_NICE));
    if let Err(e) = raised {
        tracing::debug!("the {thread} thread keeps its priority: {e}");
    }
}

/// A dedicated runtime for device actors: a current-thread runtime driven by a thread of its
/// own, which waits in the reactor itself (no worker pool, no work stealing, no parking
/// through a condition variable between one read and the next: 15-20 % less CPU per board
/// message than a one-worker multi-thread runtime in the bench).
#[derive(Debug)]
pub struct DeviceRuntime {
    handle: Handle,
    /// Ends the thread's `block_on`, which then drops the runtime in the background.
    stop: Option<oneshot::Sender<()>>,
}

impl DeviceRuntime {
    /// Start its thread (`chessclock-dev`).
    pub fn start() -> std::io::Result<DeviceRuntime> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("chessclock-dev".into())
            .spawn(move || {
                // Tasks spawned through the handle run while this thread is in `block_on`.
                runtime.block_on(async {
                    let _ = stopped.await;
                });
                runtime.shutdown_background();
            })?;
        Ok(DeviceRuntime {
            handle,
            stop: Some(stop),
        })
    }

    /// Where device actors are started.
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Stop it without waiting (the actors have been stopped by then); safe to call from
    /// inside another runtime: its own thread drops the runtime. Dropping it does the same.
    pub fn shutdown(self) {
        drop(self);
    }
}

impl Drop for DeviceRuntime {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actors_run_on_its_own_thread_and_it_stops_from_inside_another_runtime() {
        let devices = DeviceRuntime::start().expect("device runtime");
        let handle = devices.handle();
        let (tx, rx) = std::sync::mpsc::channel();
        handle.spawn(async move {
            let _ = tx.send(std::thread::current().name().map(str::to_owned));
        });
        let ran_on = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the task ran");
        assert_eq!(ran_on.as_deref(), Some("chessclock-dev"));

        let bus = Builder::new_current_thread().build().expect("runtime");
        bus.block_on(async move { devices.shutdown() });
        // Stopped without waiting: its thread leaves `block_on` soon after, and from then on
        // a task spawned through the handle is cancelled instead of run.
        let stopped = bus.block_on(async {
            for _ in 0..100_000 {
                if handle.spawn(async {}).await.is_err() {
                    return true;
                }
            }
            false
        });
        assert!(
            stopped,
            "the device runtime still runs tasks after its shutdown"
        );
    }
}
