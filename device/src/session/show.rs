//! What the clock shows: the engine's events turned into bus events and announcements, the
//! times pushed when the game changed or the device would drift from the engine, the
//! double-flag mark, and announcement text after the times.
//!
//! Part of the pure [`Session`]: it tells the driver what to show; the wire side (commands,
//! the text timer, the re-sync at the engine's next second) is the driver's.

use chessclock_protocol::ClockModel;

use super::{Note, Session};
use crate::link::display::BoardSide;
use crate::link::display::face;
use crate::link::driver::Instant;
use crate::link::state::DeviceState;
use crate::session::announce;
use crate::session::interface::ClockEvent;
use chessclock_engine::{Event, MethodDetail, Side, Time};

/// A display value that changes within this many ms is pushed as it will be.
const LOOKAHEAD_MS: u64 = 5;

impl Session {
    /// Act on the engine's events since the last call: bus events, announcements, the
    /// board's clocks of a press, the flag in the journal.
    pub(super) fn drain_engine(&mut self, now: Instant) {
        let t_ms = self.time_at(now).as_ms();
        while let Some(ev) = self.engine.poll_event() {
            self.state_changed();
            let model = self.driver.model().unwrap_or(ClockModel::Dgt3000);
            if let Some(a) = announce::announce(&ev, model) {
                self.display.announce(a);
            }
            match &ev {
                Event::Pressed(p) => {
                    self.board_press(Time::from_ms(t_ms), p.side, p.mover_ms(), p.move_ms);
                }
                Event::Flag { side, reason } => {
                    self.note(
                        now,
                        Note::Flag {
                            side: *side,
                            reason: *reason,
                        },
                        false,
                    );
                    self.flag_fell(*side);
                }
                Event::Result { .. } => self.board.changed(),
                _ => {}
            }
            if let Some(event) = clock_event(ev) {
                self.say(t_ms, event);
            }
        }
    }

    /// Push the times if the game changed, a refresh is due, or the device would show
    /// something else than the engine by its own countdown.
    pub(super) fn update_display(&mut self, now: Instant) {
        if self.observing() {
            return;
        }
        if !self.driver.clock_usable() && self.driver.device_state() != DeviceState::NotInPcMode {
            return;
        }
        if self.driver.text_showing() {
            // The game comes first: a change of the game (a press, a flag, a start, an
            // arbiter's correction) ends any text, an operator's included, and its times go
            // out now. A mere re-sync waits for the text's end (the clock counts behind it).
            if !self.display.is_dirty() {
                return;
            }
            self.driver.end_text();
        }
        let t = self.time_at(now);
        let mut d = self.engine.display(t);
        // A value about to change (a rising hourglass or swing half steps 1 ms after the
        // falling half, since both round up) is pushed as it will be: a push a few ms early
        // beats one a whole command round trip late behind this one.
        let mut lead_ms = 0;
        if let Some(next) = d.next_refresh
            && next > t
            && next.as_ms() - t.as_ms() <= LOOKAHEAD_MS
        {
            lead_ms = next.as_ms() - t.as_ms();
            d = self.engine.display(next);
        }
        let wanted = face(d.white_s, d.black_s, d.counting, self.cfg.white_side);
        let differs = self.driver.shows(now).is_none_or(|shown| shown != wanted);
        if !self.display.take_push(differs) {
            return;
        }
        let to_next_second = d.ms_to_next_second.map(|ms| ms + lead_ms);
        self.driver.push_times(now, wanted, to_next_second);
        let (left, right) = self.flag_icons(now);
        self.driver.flag_icons(left, right);
    }

    /// The lasting mark of a double-flag player on extra time ("cannot win", spec
    /// timecontrols §4.10 display): the flag icon of that player's half, (left, right). It
    /// stays on through the second flag and goes out when the arbiter gives main time back
    /// or a new game starts.
    fn flag_icons(&self, now: Instant) -> (bool, bool) {
        let snap = self.engine.snapshot(self.time_at(now));
        let extra = |side: Side| {
            matches!(
                snap.detail.get(side).method,
                MethodDetail::DoubleFlag {
                    extra_ms: Some(_),
                    ..
                }
            )
        };
        let white = extra(Side::White);
        let black = extra(Side::Black);
        match self.cfg.white_side {
            BoardSide::Left => (white, black),
            BoardSide::Right => (black, white),
        }
    }

    /// Show the latest game event as text, after the times it changed have been pushed (the
    /// device keeps counting behind the text); the times come back after
    /// [`announce::SHOW_FOR`].
    pub(super) fn show_announcement(&mut self, now: Instant) {
        if !self.driver.clock_usable() || self.observing() {
            self.display.clear_announcements();
            return;
        }
        if self.driver.text_showing() {
            return;
        }
        let Some(a) = self.display.next_announcement() else {
            return;
        };
        if a.beep {
            self.driver.beep(1000);
        }
        self.driver.show_text(now, &a.text, announce::SHOW_FOR);
    }
}

/// The bus event for an engine event; phase and period changes are shown on the clock and
/// in the snapshot (published at once: every engine event is a change), not signalled.
pub fn clock_event(ev: Event) -> Option<ClockEvent> {
    Some(match ev {
        Event::StatusChanged { old, new, reason } => ClockEvent::StateChanged { old, new, reason },
        Event::Pressed(p) => ClockEvent::Pressed(p),
        Event::Flag { side, reason } => ClockEvent::Flag { side, reason },
        Event::Result { result, reason } => ClockEvent::Result { result, reason },
        Event::PhaseChanged { .. } | Event::PeriodChanged { .. } => return None,
    })
}
