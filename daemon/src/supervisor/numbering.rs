//! The clocks' board numbers, by their boards: a clock's number is its board's
//! (`known.rs`), given when it is attached, learnt again when its board reports its serial
//! number, set by hand (`SetBoard`); and a board that comes back on another port while its
//! game waits on the old one gets its game (the journal moves to the new port).
//!
//! Owns these rules as the registry applies them; the numbering itself (lowest free, kept
//! by identity) is `known.rs`'s. It must not know the bus.

use std::collections::BTreeSet;

use super::known::Identity;
use super::registry::Supervisor;
use super::{ClockSpec, SupervisorError};
use crate::device::{self, DeviceState, PortSpec, Request};
use crate::engine::Status;

impl Supervisor {
    /// The numbers no other board may be given: the configured tables' and the attached
    /// clocks' but `except`'s.
    fn reserved(&self, except: Option<u32>) -> BTreeSet<u32> {
        let mut reserved = self.defaults.configured_boards.clone();
        reserved.extend(
            self.clocks
                .iter()
                .filter(|(i, _)| Some(**i) != except)
                .map(|(_, e)| e.board),
        );
        reserved
    }

    /// The number of the board known as `identity` (attached now): its own, or the lowest
    /// free one, kept from now on.
    pub(super) fn known_number(&mut self, identity: &Identity) -> u32 {
        let reserved = self.reserved(None);
        self.known.number(identity, &reserved)
    }

    /// Clock `index`'s board reported `serial`: the table that names it applies
    /// (`table.rs`); the board's game waiting on another port comes to this one; the clock
    /// takes the board's number and name.
    pub(super) async fn serial_seen(&mut self, index: u32, serial: &str) {
        self.table_seen(index, serial);
        let Some(entry) = self.clocks.get(&index) else {
            return;
        };
        let Identity::Tty {
            port,
            serial: known,
        } = entry.identity.clone()
        else {
            return;
        };
        if known.as_deref() == Some(serial) {
            return;
        }
        // A board configured by its port is that port's; one with a table's number keeps it.
        let numbered = entry.configured || entry.spec.board.is_some() || entry.table.is_some();
        if !entry.configured
            && let Some(from) = self.waiting_game(index, serial)
        {
            match self.move_game(from, index, Moved::Replugged).await {
                Ok(()) => return,
                Err(e) => tracing::warn!(
                    clock = index,
                    "board {serial}'s game on clock {from} did not move to clock {index}: {e}"
                ),
            }
        }
        let Some(entry) = self.clocks.get_mut(&index) else {
            return;
        };
        entry.identity = Identity::Tty {
            port: port.clone(),
            serial: Some(serial.to_owned()),
        };
        if numbered {
            return;
        }
        let current = entry.board;
        let fresh = is_fresh(&entry.handle.borrow_state());
        let reserved = self.reserved(Some(index));
        let seen = self.known.serial_seen(&port, serial, current, &reserved);
        if let Some(name) = &seen.name
            && let Some(entry) = self.clocks.get(&index)
            && entry.spec.name.is_none()
            && entry.handle.borrow_state().name != *name
        {
            let (handle, name) = (entry.handle.clone(), name.clone());
            tokio::spawn(async move {
                let _ = handle.request(Request::Rename(name)).await;
            });
        }
        if seen.board == current {
            return;
        }
        if !fresh {
            // A game under way keeps its board's number: it was played there.
            let text = format!(
                "board {serial} is board {} here, but clock {index}'s game under way is board \
                 {current}'s: the game keeps board {current}; when it is over, `chessclockctl \
                 new-game {index}` gives the clock board {}",
                seen.board, seen.board
            );
            tracing::warn!(clock = index, "{text}");
            self.notice(index, text);
            return;
        }
        tracing::info!(
            clock = index,
            "board {serial} is board {} (it was known so): clock {index} is board {} now",
            seen.board,
            seen.board
        );
        self.renumber(index, seen.board);
    }

    /// Clock `index` is named `name`: the board's name from now on, unless it is the name
    /// the clock would have anyway (its port's, its virtual clock's, its table's).
    pub(super) fn name_seen(&mut self, index: u32, name: &str) {
        let Some(entry) = self.clocks.get(&index) else {
            return;
        };
        let default = match (&entry.virtual_name, &entry.spec.name) {
            (Some(v), _) => v.clone(),
            (None, Some(table)) => table.clone(),
            (None, None) => super::registry::default_name(&entry.port),
        };
        let identity = entry.identity.clone();
        if name != default || self.known.get(&identity).is_some_and(|b| b.name.is_some()) {
            self.known.set_name(&identity, name);
        }
    }

    /// Clock `index` is board `board` from now on (its game's live file and tags follow).
    fn renumber(&mut self, index: u32, board: u32) {
        let Some(entry) = self.clocks.get_mut(&index) else {
            return;
        };
        entry.board = board;
        let handle = entry.handle.clone();
        let round = *self.published.round.borrow();
        tokio::spawn(async move {
            let _ = handle.request(Request::Place { round, board }).await;
        });
        self.publish();
    }

    /// Make clock `index` board `board` (an operator's `SetBoard`), kept for its board.
    pub(super) fn set_board(&mut self, index: u32, board: u32) -> Result<String, SupervisorError> {
        if board == 0 {
            return Err(SupervisorError::InvalidArgument(
                "board numbers start at 1".into(),
            ));
        }
        let Some(entry) = self.clocks.get(&index) else {
            return Err(SupervisorError::NoSuchClock(format!(
                "no clock {index}; `chessclockctl list` shows the attached clocks"
            )));
        };
        if let Some(n) = entry.spec.board {
            return Err(SupervisorError::NotAllowed(format!(
                "clock {index} is board {n} by its [[clock]] table (board = {n}); change it there \
                 and reload (`systemctl reload chessclockd`)"
            )));
        }
        if let Some((other, _)) = self
            .clocks
            .iter()
            .find(|(i, e)| **i != index && e.board == board)
        {
            return Err(SupervisorError::NotAllowed(format!(
                "board {board} is clock {other}; give that clock another number first \
                 (`chessclockctl renumber {other} N`)"
            )));
        }
        if self.defaults.configured_boards.contains(&board) {
            return Err(SupervisorError::NotAllowed(format!(
                "board {board} is a [[clock]] table's (board = {board}) in the configuration; \
                 choose another number"
            )));
        }
        let before = entry.board;
        let identity = entry.identity.clone();
        self.known.set_number(&identity, board);
        self.renumber(index, board);
        Ok(format!("clock {index}: board {before} -> board {board}"))
    }

    /// The clock, other than `index`, whose game waits for board `serial`: a clock on a
    /// tty attached at run time, whose board (as its game's journal or its last report
    /// says) is that one and whose port is gone, while clock `index`'s game has not begun.
    fn waiting_game(&self, index: u32, serial: &str) -> Option<u32> {
        let target = self.clocks.get(&index)?;
        if !is_fresh(&target.handle.borrow_state()) {
            return None;
        }
        self.clocks
            .iter()
            .find(|(i, e)| {
                let st = e.handle.borrow_state();
                **i != index
                    && e.virtual_name.is_none()
                    && !e.configured
                    && st.board_serial == serial
                    && st.device_state == DeviceState::Disconnected
                    && !is_fresh(&st)
            })
            .map(|(i, _)| *i)
    }

    /// Move clock `from`'s game to clock `to`'s port: both actors stop (their journals
    /// closed), `to`'s unbegun game gives way, `from`'s journal becomes `to`'s port's, the
    /// remembered ports follow, and the game resumes there as clock `from`, with its board
    /// number, name and settings; the board that played it before gives the number up (it is
    /// numbered anew when it comes back). A crash in between leaves one game: the journal moves
    /// in one step (`store::move_store`) before anything else changes.
    pub(super) async fn move_game(
        &mut self,
        from: u32,
        to: u32,
        why: Moved,
    ) -> Result<(), SupervisorError> {
        let missing = |i: u32| {
            SupervisorError::NoSuchClock(format!(
                "no clock {i}; `chessclockctl list` shows the attached clocks"
            ))
        };
        let no_journals = || {
            SupervisorError::NotAllowed(
                "the daemon keeps no journals (no state directory): a game cannot move".into(),
            )
        };
        let source = self.clocks.get(&from).ok_or_else(|| missing(from))?;
        let target = self.clocks.get(&to).ok_or_else(|| missing(to))?;
        if source.configured {
            return Err(SupervisorError::NotAllowed(format!(
                "clock {from} is the [[clock]] table of {}: give the table the new port in the \
                 configuration and reload (`systemctl reload chessclockd`)",
                source.port.display()
            )));
        }
        if target.virtual_name.is_some() {
            return Err(SupervisorError::InvalidArgument(
                "a game moves to a board on a port, not to a virtual clock".into(),
            ));
        }
        if !is_fresh(&target.handle.borrow_state()) {
            return Err(SupervisorError::NotAllowed(format!(
                "clock {to} on {} has a game of its own; end it first (`chessclockctl detach {to} \
                 --archive`, then attach the port again)",
                target.port.display()
            )));
        }
        let (Some(from_store), Some(to_store)) = (source.journal.clone(), target.journal.clone())
        else {
            return Err(no_journals());
        };
        let dir = self
            .defaults
            .device
            .state_dir
            .clone()
            .ok_or_else(no_journals)?;
        let old_port = source.port.clone();
        let old_virtual = source.virtual_name.clone();
        let old_serial = source.handle.borrow_state().board_serial.clone();
        let new_port = target.port.clone();
        let serial = target.handle.borrow_state().board_serial.clone();
        let board = source.board;
        let name = source.handle.borrow_state().name.clone();
        let spec = ClockSpec {
            port: new_port.clone(),
            name: Some(name.clone()),
            white_side: source.spec.white_side,
            time_control: source.spec.time_control.clone(),
            game_info: source.spec.game_info.clone(),
            move_source: source.spec.move_source,
            mode: source.spec.mode,
            draw_rules: source.spec.draw_rules,
            remember: true,
            wait_for_port: true,
            ..ClockSpec::default()
        };
        let stable = device::stable_port(&new_port);
        let identity = Identity::Tty {
            port: stable.clone(),
            serial: (!serial.is_empty()).then(|| serial.clone()),
        };
        self.remove(to, Request::Shutdown).await;
        self.remove(from, Request::Shutdown).await;
        let moved = self
            .sinks
            .journals
            .move_store(&dir, &from_store, &to_store)
            .await;
        if let Err(e) = moved {
            tracing::error!(
                "the game of clock {from} stays on {}: its journal did not move: {e}",
                old_port.display()
            );
            return Err(SupervisorError::PortFailed(format!(
                "the game did not move (its journal stays with {}): {e}; attach the old port \
                 again to go on there",
                old_port.display()
            )));
        }
        // What a restart must find: the new port attached, the old one not.
        match &old_virtual {
            Some(v) => self.remembered.virtual_clocks.remove(v),
            None => self.remembered.ports.remove(&old_port),
        };
        self.remembered.ports.insert(new_port.clone());
        self.save_remembered();
        // The board is known on its new port, with its game's number.
        if !serial.is_empty() {
            let reserved = self.reserved(None);
            self.known.serial_seen(&stable, &serial, board, &reserved);
        }
        self.known.set_number(&identity, board);
        self.known.set_name(&identity, &name);
        self.attach_at(Some(from), PortSpec::Tty(new_port.clone()), spec)
            .await?;
        if let Some(entry) = self.clocks.get_mut(&from) {
            entry.identity = identity;
        }
        let on = |port: &std::path::Path, serial: &str| match serial {
            "" => port.display().to_string(),
            s => format!("{} (board {s})", port.display()),
        };
        let text = match why {
            Moved::Replugged => format!(
                "board {serial} came back on {} (it was on {}): its game goes on here",
                new_port.display(),
                old_port.display()
            ),
            Moved::Replaced => format!(
                "the game moved from {} to {}: it goes on here as board {board}",
                on(&old_port, &old_serial),
                on(&new_port, &serial)
            ),
        };
        tracing::info!(clock = from, "{text}");
        self.notice(from, text);
        Ok(())
    }

    /// Tell clock `index`'s operator `text` (its notices).
    fn notice(&self, index: u32, text: String) {
        if let Some(entry) = self.clocks.get(&index) {
            let handle = entry.handle.clone();
            tokio::spawn(async move {
                let _ = handle.request(Request::Notice(text)).await;
            });
        }
    }
}

/// Why a game moves to another port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Moved {
    /// Its board came back on another port (known by its serial number).
    Replugged,
    /// An operator moved it to other hardware (`Replace`).
    Replaced,
}

/// Whether a clock's game has not begun: nothing a board number would lose.
fn is_fresh(st: &crate::device::ClockState) -> bool {
    st.game_state == Status::Ready
        && st.moves_san.is_empty()
        && st.snapshot.moves.white == 0
        && st.snapshot.moves.black == 0
}
