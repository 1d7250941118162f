//! One clock's changes on the bus: the task that turns the actor's published states into
//! `PropertiesChanged` (only the properties that changed) and its typed events into signals
//! (their words: a status, a reason code).
//!
//! Owns when to signal; which published fields changed is the model's comparison
//! ([`published::emit_changes`]). Holds the interface reference and the device handle, no game
//! logic.

use zbus::object_server::{InterfaceRef, SignalEmitter};

use super::ClockIface;
use super::published::{self, ClockServed};
use crate::device::{ClockEvent, ClockState, DeviceHandle};

/// Forward one clock's state changes and events to the bus until the actor stops.
/// `initial` is the state when the object was registered (what `InterfacesAdded` told
/// clients): a change made before this task started is signalled too.
pub async fn forward(iface: InterfaceRef<ClockServed>, handle: DeviceHandle, initial: ClockState) {
    let mut state_rx = handle.watch_state();
    let mut events = handle.subscribe();
    let mut last = initial;
    let now = state_rx.borrow_and_update().clone();
    if now != last {
        if let Err(e) = published::emit_changes(iface.signal_emitter(), &last, &now).await {
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
                if let Err(e) = published::emit_changes(iface.signal_emitter(), &last, &now).await {
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

async fn emit_event(e: &SignalEmitter<'_>, ev: &ClockEvent) -> zbus::Result<()> {
    match ev {
        ClockEvent::StateChanged { old, new, reason } => {
            ClockIface::state_changed(e, old.as_str(), new.as_str(), reason.as_str()).await
        }
        ClockEvent::Pressed(chessclock_engine::Press {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        }) => {
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
