//! The published state and the device's facts the game does not hold (model, firmware,
//! serial numbers, battery). It marks what must be published; it does not publish.

use crate::session::DeviceInfo;
use crate::session::interface::ClockState;

/// The published state and the facts of the clock the game does not hold. Invariant:
/// `changed` is set by every change that is not the running time, so the next publish
/// sends it.
#[derive(Debug)]
pub(crate) struct Published {
    /// As of the latest publish; it holds the clock's facts the game does not (name,
    /// control, notices, connection). No engine in it.
    state: ClockState,
    /// Something besides the running time changed since the last publish.
    changed: bool,
    /// The device as the link knows it.
    info: DeviceInfo,
    /// The serial number of the board this game is played on, as the journal knows it.
    journal_serial: Option<String>,
}

impl Published {
    /// The state `state` of a game played on board `journal_serial` (as the journal says),
    /// to be published. Until the board says otherwise, the clock is that board (the
    /// supervisor knows it by that serial number).
    pub(crate) fn new(state: ClockState, journal_serial: Option<String>) -> Published {
        Published {
            state,
            changed: true,
            info: DeviceInfo {
                board_serial: journal_serial.clone().unwrap_or_default(),
                ..DeviceInfo::default()
            },
            journal_serial,
        }
    }

    /// The state as of the latest publish, with the facts kept since.
    pub(crate) fn state(&self) -> &ClockState {
        &self.state
    }

    /// The state to edit: whatever differs from the last publish besides the running
    /// times is published (the publish compares); [`Published::mark_changed`] publishes
    /// even what compares equal.
    pub(crate) fn state_mut(&mut self) -> &mut ClockState {
        &mut self.state
    }

    /// Publish the next state whatever it holds (an event happened).
    pub(crate) fn mark_changed(&mut self) {
        self.changed = true;
    }

    /// The clock's battery is low, or not.
    pub(crate) fn set_battery_low(&mut self, low: bool) {
        self.info.battery_low = low;
    }

    /// The clock's model and firmware, as the link read them.
    pub(crate) fn set_device(&mut self, model: String, firmware: String) {
        if self.info.model != model || self.info.firmware != firmware {
            self.info.model = model;
            self.info.firmware = firmware;
            self.changed = true;
        }
    }

    /// The board on the port said its serial number.
    pub(crate) fn set_board_serial(&mut self, serial: &str) {
        if self.info.board_serial != serial {
            self.info.board_serial = serial.to_owned();
            self.changed = true;
        }
    }

    /// The board this game is played on, as the journal knows it.
    pub(crate) fn journal_serial(&self) -> Option<&str> {
        self.journal_serial.as_deref()
    }

    /// The game is played on board `serial` from now on (the journal says so).
    pub(crate) fn played_on(&mut self, serial: String) {
        self.journal_serial = Some(serial);
    }

    /// The device's facts into the state, before a publish.
    pub(crate) fn sync_info(&mut self) {
        let (info, state) = (&self.info, &mut self.state);
        if state.model != info.model {
            state.model.clone_from(&info.model);
        }
        if state.firmware != info.firmware {
            state.firmware.clone_from(&info.firmware);
        }
        if state.board_serial != info.board_serial {
            state.board_serial.clone_from(&info.board_serial);
        }
        state.battery_low = info.battery_low;
    }

    /// Tell the operator `notice` (published with the next state).
    pub(crate) fn notice(&mut self, notice: String) {
        self.state.notices.push(notice);
        self.changed = true;
    }

    /// Whether something besides the running time changed since the last call.
    pub(crate) fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }
}

#[cfg(test)]
mod tests {
    use super::Published;
    use crate::session::tests;

    #[test]
    fn a_notice_is_published_with_the_next_state_once() {
        let mut published = Published {
            state: crate::session::publish::first_state(&tests::config(), &tests::engine("G/3"), 0),
            changed: false,
            info: Default::default(),
            journal_serial: None,
        };
        published.notice("board 2 moved".into());
        assert_eq!(published.state.notices, ["board 2 moved"]);
        assert!(published.take_changed());
        assert!(!published.take_changed(), "sent once");
    }
}
