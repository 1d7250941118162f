//! `[[clock]]` tables matched by board serial number: which clock gets which table, and
//! applying a table to a clock that is running already.
//!
//! Owns the rule: a clock attached at run time (scan, udev hook, `chessclockctl attach`,
//! D-Bus `Attach`, remembered) whose board reports the serial number of a table whose clock
//! is not attached elsewhere gets the table's name, white side, game information and mode, and
//! its time control (parsed here) only while its game has not started. A clock attached from
//! a table by its port keeps that table; a virtual clock is never matched (its name is its
//! journal's). It talks to the clock through its requests only and must not know the bus.

use tokio::sync::{mpsc, watch};

use super::{BoardTable, Seen};
use crate::device::observe::Mode;
use crate::device::{ClockState, DeviceError, DeviceHandle, Request};
use crate::engine::params::TimeControl;

/// Follow `state` and tell the supervisor each serial number the board reports and each
/// name the clock is given (once per change; no empty serial number). A serial number is
/// told once the board has answered: before, the clock shows its journal's, which is the
/// board the game was played on, not always the one on the port (a spare swapped in). Ends
/// when the clock's actor stops.
pub(super) async fn watch_serial(
    index: u32,
    mut state: watch::Receiver<ClockState>,
    seen: mpsc::UnboundedSender<Seen>,
) {
    let mut serial = String::new();
    let mut name = state.borrow().name.clone();
    loop {
        let mut said = Vec::new();
        {
            let now = state.borrow_and_update();
            if now.device_state.board_answered() && now.board_serial != serial {
                serial.clone_from(&now.board_serial);
                if !serial.is_empty() {
                    said.push(Seen::Serial {
                        index,
                        serial: serial.clone(),
                    });
                }
            }
            if now.name != name {
                name.clone_from(&now.name);
                said.push(Seen::Name {
                    index,
                    name: name.clone(),
                });
            }
        }
        for s in said {
            if seen.send(s).is_err() {
                return;
            }
        }
        if state.changed().await.is_err() {
            return;
        }
    }
}

/// What a reported serial number means for a clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Match {
    /// No table names it.
    None,
    /// The table at this position in the list applies.
    Apply(usize),
    /// The table's clock is another, attached already (its number).
    Taken { table: usize, by: u32 },
}

/// Which table a clock whose board reports `serial` gets. `taken` says which clock, if any,
/// has the table with a serial number already (`None`: free).
pub(super) fn choose(
    tables: &[BoardTable],
    serial: &str,
    taken: impl Fn(&str) -> Option<u32>,
) -> Match {
    let Some(i) = tables.iter().position(|t| t.board_serial == serial.trim()) else {
        return Match::None;
    };
    match taken(&tables[i].board_serial) {
        Some(by) => Match::Taken { table: i, by },
        None => Match::Apply(i),
    }
}

/// How a table names itself in messages: `clock[2] ("Board 1")`.
pub(super) fn describe(table: &BoardTable) -> String {
    match &table.spec.name {
        Some(name) => format!("{} ({name:?})", table.key),
        None => table.key.clone(),
    }
}

/// Apply `table` to clock `index` through its requests, in an order the clock accepts: the
/// name, White's side and the game information; then the mode and the time control, the
/// control only while the game has not started (a game under way keeps its control: said in
/// the log and in the clock's notices, as is any request the clock refuses).
pub(super) async fn apply(index: u32, handle: DeviceHandle, table: BoardTable) {
    let what = describe(&table);
    let spec = table.spec;
    tracing::info!(
        clock = index,
        "board {} on clock {index} is [[clock]] {what}: its settings apply",
        table.board_serial
    );
    let notice = |text: String| {
        let handle = handle.clone();
        async move {
            tracing::warn!(clock = index, "{text}");
            let _ = handle.request(Request::Notice(text)).await;
        }
    };
    let mut steps: Vec<(&str, Request)> = Vec::new();
    if let Some(name) = &spec.name {
        steps.push(("name", Request::Rename(name.clone())));
    }
    steps.push(("white_side", Request::SetWhiteSide(spec.white_side)));
    if !spec.game_info.is_empty() {
        steps.push(("game_info", Request::SetGameInfo(spec.game_info.clone())));
    }
    // Drive before a control is set; observe after (an observed clock takes no control).
    if spec.mode == Mode::Drive {
        steps.push(("mode", Request::SetMode(Mode::Drive)));
    }
    for (key, request) in steps {
        if let Err(e) = handle.request(request).await {
            notice(format!(
                "[[clock]] {what}: its {key} was not applied to clock {index}: {e}"
            ))
            .await;
        }
    }
    if let Some(control) = &spec.time_control
        && spec.mode == Mode::Drive
    {
        set_control(index, &handle, &what, control, notice).await;
    }
    if spec.mode == Mode::Observe
        && let Err(e) = handle.request(Request::SetMode(Mode::Observe)).await
    {
        notice(format!(
            "[[clock]] {what}: its mode (observe) was not applied to clock {index}: {e}"
        ))
        .await;
    }
}

/// The table's control, if the clock's game has not started and it has another.
async fn set_control<F, Fut>(
    index: u32,
    handle: &DeviceHandle,
    what: &str,
    wanted: &TimeControl,
    notice: F,
) where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let control = crate::engine::notation::canonical(wanted);
    let current = handle.borrow_state().time_control.clone();
    if current == control {
        return;
    }
    // The clock checks that its game has not started in the same step as the change: a
    // game started meanwhile keeps its control.
    match handle
        .request(Request::SetControlBeforeStart(Box::new(wanted.clone())))
        .await
    {
        Ok(()) => {}
        Err(DeviceError::NotAllowed(_)) => {
            let status = handle.borrow_state().game_state;
            notice(format!(
                "[[clock]] {what} sets the time control {control}, but clock {index}'s game is \
                 {status}: it keeps {current}; `chessclockctl new-game {index}` and then \
                 `chessclockctl set {index} '{control}'` set it for the next game"
            ))
            .await;
        }
        Err(e) => {
            notice(format!(
                "[[clock]] {what}: its time control {control} was not applied to clock \
                 {index}: {e}"
            ))
            .await;
        }
    }
}
