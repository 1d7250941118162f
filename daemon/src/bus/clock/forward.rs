//! One clock's changes on the bus: the task that turns the actor's published states into
//! `PropertiesChanged` (only the properties that changed) and its typed events into signals
//! (their words: a status, a reason code).
//!
//! Owns the comparison of old and new state per property; holds the interface reference and
//! the device handle, no game logic.

use zbus::object_server::{InterfaceRef, SignalEmitter};

use super::ClockIface;
use crate::device::{ClockEvent, ClockState, DeviceHandle};

/// Forward one clock's state changes and events to the bus until the actor stops.
/// `initial` is the state when the object was registered (what `InterfacesAdded` told
/// clients): a change made before this task started is signalled too.
pub async fn forward(iface: InterfaceRef<ClockIface>, handle: DeviceHandle, initial: ClockState) {
    let mut state_rx = handle.watch_state();
    let mut events = handle.subscribe();
    let mut last = initial;
    let now = state_rx.borrow_and_update().clone();
    if now != last {
        if let Err(e) = emit_changes(&iface, &last, &now).await {
            tracing::warn!("could not emit PropertiesChanged: {e}");
        }
        last = now;
    }
    loop {
        tokio::select! {
            changed = state_rx.changed() => {
                if changed.is_err() {
                    break;
                }
                let now = state_rx.borrow_and_update().clone();
                if let Err(e) = emit_changes(&iface, &last, &now).await {
                    tracing::warn!("could not emit PropertiesChanged: {e}");
                }
                last = now;
            }
            ev = events.recv() => match ev {
                Ok(ev) => {
                    if let Err(e) = emit_event(iface.signal_emitter(), &ev).await {
                        tracing::warn!("could not emit signal: {e}");
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!("bus forwarder lagged, {n} events not signalled");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
        }
    }
}

async fn emit_changes(
    iface: &InterfaceRef<ClockIface>,
    old: &ClockState,
    new: &ClockState,
) -> zbus::Result<()> {
    let obj = iface.get().await;
    let e = iface.signal_emitter();
    if old.name != new.name {
        obj.name_changed(e).await?;
    }
    if old.port != new.port {
        obj.port_changed(e).await?;
    }
    if old.model != new.model {
        obj.model_changed(e).await?;
    }
    if old.firmware != new.firmware {
        obj.firmware_changed(e).await?;
    }
    if old.board_serial != new.board_serial {
        obj.board_serial_changed(e).await?;
    }
    if old.connected != new.connected {
        obj.connected_changed(e).await?;
    }
    if old.device_state != new.device_state {
        obj.device_state_changed(e).await?;
    }
    if old.game_state != new.game_state {
        obj.game_state_changed(e).await?;
    }
    if old.time_control != new.time_control {
        obj.time_control_changed(e).await?;
    }
    if old.white_side != new.white_side {
        obj.white_side_changed(e).await?;
    }
    if old.mode != new.mode {
        obj.mode_changed(e).await?;
    }
    if old.board.fen != new.board.fen {
        obj.fen_changed(e).await?;
    }
    if old.board.moves != new.board.moves {
        obj.moves_changed(e).await?;
    }
    if old.board.game_info != new.board.game_info {
        obj.game_info_changed(e).await?;
    }
    if old.board.problem != new.board.problem {
        obj.board_problem_changed(e).await?;
    }
    if old.battery_low != new.battery_low {
        obj.battery_low_changed(e).await?;
    }
    if old.board.draw_claimable != new.board.draw_claimable {
        obj.draw_claimable_changed(e).await?;
    }
    if old.notices != new.notices {
        obj.notices_changed(e).await?;
    }
    if old.snapshot != new.snapshot || old.as_of_us != new.as_of_us {
        obj.snapshot_changed(e).await?;
    }
    Ok(())
}

async fn emit_event(e: &SignalEmitter<'_>, ev: &ClockEvent) -> zbus::Result<()> {
    match ev {
        ClockEvent::StateChanged { old, new, reason } => {
            ClockIface::state_changed(e, old.as_str(), new.as_str(), reason.as_str()).await
        }
        ClockEvent::Pressed {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        } => {
            ClockIface::pressed(
                e,
                side.as_str(),
                *move_number,
                *move_ms,
                *white_ms,
                *black_ms,
            )
            .await
        }
        ClockEvent::Flag { side, reason } => {
            ClockIface::flag(e, side.as_str(), reason.as_str()).await
        }
        ClockEvent::Move {
            ply,
            san,
            uci,
            fen,
            mover_ms,
        } => ClockIface::r#move(e, *ply, san, uci, fen, *mover_ms).await,
        ClockEvent::Result { result, reason } => {
            ClockIface::result(e, &result.to_string(), reason.as_str()).await
        }
    }
}
