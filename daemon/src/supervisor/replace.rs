//! Swapping a board or a clock mid-game (`Replace`, `chessclockctl replace CLOCK --with
//! PORT|SERIAL`): the game moves to the other hardware, as a board replugged on another port's
//! does (`numbering.rs`, [`super::numbering::Moved`]).
//!
//! Owns the steps a client's request takes before the move: naming the other hardware (a
//! port, attached here if it is not yet, or the serial number an attached board reports) and
//! waiting, bounded, until its board has answered. The move itself is the supervisor task's.
//! It must not know the bus.

use std::path::PathBuf;
use std::time::Duration;

use super::{ClockSpec, Msg, SupervisorError, SupervisorHandle};
use crate::device::DeviceHandle;

/// How long a board named for a swap may take to answer.
const ANSWER_WAIT: Duration = Duration::from_secs(10);

impl SupervisorHandle {
    /// Move clock `from`'s game (moves, times, control, players, board number, mode) to the
    /// board `with` names: a port (attached first if it is not) or the serial number of an
    /// attached board. Its board must answer and its game must not have begun; the old
    /// hardware is let go of. Returns what was done.
    pub async fn replace(&self, from: u32, with: &str) -> Result<String, SupervisorError> {
        let handles = self.handles().await;
        let source = handles
            .iter()
            .find(|h| h.borrow_state().index == from)
            .ok_or_else(|| {
                SupervisorError::NoSuchClock(format!(
                    "no clock {from}; `chessclockctl list` shows the attached clocks"
                ))
            })?;
        let board = source.borrow_state().board;
        let with = with.trim();
        let target = if with.starts_with('/') {
            self.port_target(&handles, from, with).await?
        } else {
            serial_target(&handles, from, with)?
        };
        let to = target.borrow_state().index;
        answered(&target).await?;
        self.ask(|reply| Msg::MoveGame { from, to, reply })
            .await
            .unwrap_or(Err(SupervisorError::Gone))?;
        let st = target.borrow_state();
        let on = match st.board_serial.as_str() {
            "" => st.port.clone(),
            s => format!("{} (board serial {s})", st.port),
        };
        Ok(format!(
            "clock {from} (board {board}): its game goes on on {on}; the old board is detached"
        ))
    }

    /// The clock on `port`, attached now if it is not yet.
    async fn port_target(
        &self,
        handles: &[DeviceHandle],
        from: u32,
        port: &str,
    ) -> Result<DeviceHandle, SupervisorError> {
        let path = PathBuf::from(port);
        if let Some(h) = handles
            .iter()
            .find(|h| super::same_port(std::path::Path::new(&h.borrow_state().port), &path))
        {
            if h.borrow_state().index == from {
                return Err(SupervisorError::InvalidArgument(format!(
                    "{port} is clock {from}'s own port; name the port of the other board"
                )));
            }
            return Ok(h.clone());
        }
        let index = self
            .attach_spec(ClockSpec {
                port: path,
                remember: true,
                ..ClockSpec::default()
            })
            .await?;
        self.handles()
            .await
            .into_iter()
            .find(|h| h.borrow_state().index == index)
            .ok_or(SupervisorError::Gone)
    }
}

/// The attached clock, other than `from`, whose board reports `serial`.
fn serial_target(
    handles: &[DeviceHandle],
    from: u32,
    serial: &str,
) -> Result<DeviceHandle, SupervisorError> {
    let found: Vec<&DeviceHandle> = handles
        .iter()
        .filter(|h| {
            let st = h.borrow_state();
            st.index != from && !st.port.starts_with("virtual:") && st.board_serial == serial
        })
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(SupervisorError::InvalidArgument(format!(
            "no other attached board reports the serial number {serial:?}; plug it in and name \
             its port (`chessclockctl replace {from} --with /dev/ttyACM1`), or see the serial \
             numbers with `chessclockctl list`"
        ))),
        _ => Err(SupervisorError::InvalidArgument(format!(
            "{} attached boards report the serial number {serial:?}; name the port instead",
            found.len()
        ))),
    }
}

/// Wait (bounded) until the board of `clock` has answered the probe.
async fn answered(clock: &DeviceHandle) -> Result<(), SupervisorError> {
    if clock.answered(ANSWER_WAIT).await {
        Ok(())
    } else {
        Err(SupervisorError::PortFailed(format!(
            "the board on {} did not answer within {} s (it is {}); check its cable and that it \
             is switched on, then try again",
            clock.borrow_state().port,
            ANSWER_WAIT.as_secs(),
            clock.borrow_state().device_state
        )))
    }
}
