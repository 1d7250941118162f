//! The emulated clock (DGT 3000 or DGT XL) hanging off the board's clock connector.
//!
//! Owns what the clock itself knows: power, PC mode (option 25 / 23), the two halves' times at
//! 1 s resolution, which half runs, the lever, the final flags, a game of its own mode with
//! the period its preset adds ([`OwnPreset`]: at a player's N-th move or at the flag), the
//! text on the display, the
//! flag icons set by ICONS (dgt-protocol §6.2: L2/R2 bit 5, kept across time changes only
//! with the special byte's bit 6), and
//! how it answers each clock sub-command (the ack it would send). It must not decide whether an
//! ack or report reaches the host (that depends on the board mode, see [`super::board`]) and
//! never reads a clock: `now_ms` is passed in.

use crate::ack::{ACK_ERROR_NOT_IN_PC_MODE, ClockAck, ClockModel};
use crate::clock_command::{ClockCommand, RunFlags, SetAndRun};
use crate::clock_text::seven_segment;
use crate::report::{
    ClockReport, ClockSide, ClockTime, STATUS_BATTERY_LOW, STATUS_LEFT_TURN, STATUS_NO_CLOCK,
    STATUS_RIGHT_HIGH, STATUS_RIGHT_TURN, STATUS_RUNNING,
};

/// Which half of the clock counts down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Running {
    /// The left half runs.
    Left,
    /// The right half runs.
    Right,
    /// Nothing runs (paused, never set, or frozen by a final flag).
    None,
}

impl Running {
    /// `left`, `right` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Running::Left => "left",
            Running::Right => "right",
            Running::None => "none",
        }
    }
}

/// What the arbiter sets a clock to in one of its own modes (not PC mode): `seconds` a side,
/// and optionally a period the clock adds, as a FIDE preset does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OwnPreset {
    /// Each half's time at the start, whole seconds.
    pub seconds: u32,
    /// The period the clock adds to a half, once.
    pub period: Option<OwnPeriod>,
}

impl OwnPreset {
    /// `seconds` a side, no period.
    pub fn plain(seconds: u32) -> OwnPreset {
        OwnPreset {
            seconds,
            period: None,
        }
    }
}

/// A period a clock's own mode adds to a half.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OwnPeriod {
    /// Seconds added.
    pub add: u32,
    /// When: at the press completing that half's player's `Some(n)`-th move, or (`None`)
    /// when that half's time runs out (the flag), whatever the moves.
    pub at_move: Option<u32>,
}

/// Presses per half and whether the period was added, in a game of the clock's own.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OwnRun {
    period: Option<OwnPeriod>,
    presses: [u32; 2],
    added: [bool; 2],
}

/// The clock's state. Times are whole seconds, as the clock counts them.
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    pub(crate) model: ClockModel,
    pub(crate) present: bool,
    pub(crate) powered: bool,
    pub(crate) pc_mode: bool,
    pub(crate) left: u32,
    pub(crate) right: u32,
    pub(crate) left_final: bool,
    pub(crate) right_final: bool,
    pub(crate) running: Running,
    /// Flags 0x08 (or 0x03): the clock itself switches sides on a lever press.
    pub(crate) toggle_on_lever: bool,
    pub(crate) right_high: bool,
    pub(crate) text: Option<String>,
    /// The flag icon of the left and the right half (ICONS, L2/R2 bit 5).
    pub(crate) flag_icons: (bool, bool),
    /// The icons stay when the times change (ICONS special bit 6); else a set-and-run
    /// clears them.
    pub(crate) icons_persist: bool,
    /// The clock takes ICONS (false: it ignores the command and sends no ack, as a DGT 3000
    /// might: its ICONS support is UNVERIFIED, dgt-protocol §7.9).
    pub(crate) takes_icons: bool,
    pub(crate) last_set_and_run: Option<SetAndRun>,
    /// When the running half loses its next second.
    pub(crate) next_tick: Option<u64>,
    /// The clock's battery is low (status bit 2 of its reports).
    pub(crate) battery_low: bool,
    /// A game of the clock's own mode ([`OwnPreset`]), while it is not in PC mode.
    pub(crate) own: Option<OwnRun>,
}

impl Clock {
    pub(crate) fn new(model: ClockModel, present: bool, powered: bool, pc_mode: bool) -> Clock {
        Clock {
            model,
            present,
            powered,
            pc_mode,
            left: 0,
            right: 0,
            left_final: false,
            right_final: false,
            running: Running::None,
            toggle_on_lever: false,
            right_high: false,
            text: None,
            flag_icons: (false, false),
            icons_persist: false,
            takes_icons: true,
            last_set_and_run: None,
            next_tick: None,
            battery_low: false,
            own: None,
        }
    }

    /// Present and switched on: it talks to the board.
    pub(crate) fn alive(&self) -> bool {
        self.present && self.powered
    }

    /// (major, minor) the clock answers to VERSION.
    pub(crate) fn version(&self) -> (u8, u8) {
        match self.model {
            ClockModel::DgtXl => (1, 4),
            ClockModel::Dgt3000 => (2, 0),
            ClockModel::Unknown(m) => (m, 0),
        }
    }

    /// Power on/off. Power-on starts from a blank state (0:00:00 both, stopped).
    pub(crate) fn set_power(&mut self, on: bool) {
        if !self.present || on == self.powered {
            return;
        }
        let keep = (self.model, self.present, self.pc_mode, self.right_high);
        let takes_icons = self.takes_icons;
        *self = Clock::new(keep.0, keep.1, on, keep.2);
        self.right_high = keep.3;
        self.takes_icons = takes_icons;
    }

    /// Leave PC mode, set both halves to the preset's seconds and run the half whose lever
    /// end is up; the preset's period is added once to each half, at its move or its flag.
    pub(crate) fn start_own_game(&mut self, preset: OwnPreset, now_ms: u64) {
        if !self.alive() {
            return;
        }
        self.pc_mode = false;
        self.text = None;
        self.own = Some(OwnRun {
            period: preset.period,
            ..OwnRun::default()
        });
        self.left = preset.seconds;
        self.right = preset.seconds;
        self.left_final = false;
        self.right_final = false;
        let side = if self.right_high {
            Running::Right
        } else {
            Running::Left
        };
        self.start(side, now_ms);
    }

    fn start(&mut self, side: Running, now_ms: u64) {
        self.running = side;
        self.next_tick = (side != Running::None).then_some(now_ms.saturating_add(1000));
        self.check_flag();
    }

    /// The own game's period, if it is due to `half` (0 left, 1 right) now: at its flag
    /// (`flag`) or at its press; added at most once.
    fn own_period(&mut self, half: usize, flag: bool) -> Option<u32> {
        let run = self.own.as_mut().filter(|_| !self.pc_mode)?;
        let period = run.period?;
        let due = match period.at_move {
            None => flag,
            Some(n) => !flag && run.presses[half] == n,
        };
        if !due || run.added[half] {
            return None;
        }
        run.added[half] = true;
        Some(period.add)
    }

    /// A half that runs with nothing left shows the final flag and the clock freezes, unless
    /// its own game adds a period at the flag.
    fn check_flag(&mut self) {
        let empty = match self.running {
            Running::Left if self.left == 0 => Some(0),
            Running::Right if self.right == 0 => Some(1),
            _ => None,
        };
        if let Some(half) = empty
            && let Some(add) = self.own_period(half, true)
        {
            *self.half_mut(half) += add;
        }
        let hit = match self.running {
            Running::Left if self.left == 0 => {
                self.left_final = true;
                true
            }
            Running::Right if self.right == 0 => {
                self.right_final = true;
                true
            }
            _ => false,
        };
        if hit {
            self.running = Running::None;
            self.next_tick = None;
        }
    }

    /// Apply every whole-second tick due by `now_ms`; returns the tick instants (each one is
    /// a change the board may report).
    pub(crate) fn advance(&mut self, now_ms: u64) -> Vec<u64> {
        let mut ticks = Vec::new();
        while let Some(at) = self.next_tick.filter(|at| *at <= now_ms) {
            match self.running {
                Running::Left => self.left = self.left.saturating_sub(1),
                Running::Right => self.right = self.right.saturating_sub(1),
                Running::None => {}
            }
            self.next_tick = Some(at.saturating_add(1000));
            self.check_flag();
            ticks.push(at);
        }
        ticks
    }

    fn half_mut(&mut self, half: usize) -> &mut u32 {
        if half == 0 {
            &mut self.left
        } else {
            &mut self.right
        }
    }

    /// The lever was pressed: the lever flips; the running half switches only when the clock
    /// switches by itself (not in PC mode, or PC mode with flag 0x08 / 0x03). In a game of
    /// its own the press counts for the half that ran, which gets its period at its move.
    pub(crate) fn press_lever(&mut self, now_ms: u64) {
        self.right_high = !self.right_high;
        if !self.alive() {
            return;
        }
        let switches = !self.pc_mode || self.toggle_on_lever;
        let pressed = match self.running {
            Running::Left => Some(0),
            Running::Right => Some(1),
            Running::None => None,
        };
        if let Some(half) = pressed.filter(|_| !self.pc_mode)
            && let Some(run) = self.own.as_mut()
        {
            run.presses[half] += 1;
            if let Some(add) = self.own_period(half, false) {
                *self.half_mut(half) += add;
            }
        }
        if switches && self.running != Running::None {
            let side = if self.right_high {
                Running::Right
            } else {
                Running::Left
            };
            self.start(side, now_ms);
        }
    }

    /// Execute a clock sub-command; returns the ack the clock sends (`None`: the clock does
    /// not answer this command).
    pub(crate) fn execute(&mut self, cmd: &ClockCommand, now_ms: u64) -> Option<ClockAck> {
        if !self.alive() {
            return None;
        }
        let id = cmd.id();
        match cmd {
            ClockCommand::SetAndRun(s) => {
                if !self.pc_mode {
                    return Some(ClockAck::error(id, ACK_ERROR_NOT_IN_PC_MODE));
                }
                self.set_and_run(s, now_ms);
            }
            ClockCommand::Version => {
                let (major, minor) = self.version();
                return Some(ClockAck::version(major, minor));
            }
            ClockCommand::End => self.text = None,
            ClockCommand::Ascii { text, .. } => {
                if self.model == ClockModel::DgtXl {
                    return None;
                }
                self.text = Some(String::from_utf8_lossy(text).trim_end().to_owned());
            }
            ClockCommand::Display { segments, .. } => {
                self.text = Some(segments_text(segments));
            }
            ClockCommand::Rev2Ascii { .. } => return None,
            ClockCommand::Icons {
                left2,
                right2,
                special,
                ..
            } => {
                if !self.takes_icons {
                    return None;
                }
                self.set_icons(*left2, *right2, *special);
            }
            ClockCommand::Button | ClockCommand::Beep { .. } => {}
        }
        Some(ClockAck::ok(id))
    }

    /// ICONS: the flag bits of L2/R2 (bit 5) replace the flag icons; special bit 0 clears
    /// all icons first, bit 6 keeps them across time changes.
    fn set_icons(&mut self, left2: u8, right2: u8, special: u8) {
        const FLAG: u8 = 0x20;
        self.icons_persist = special & 0x40 != 0;
        self.flag_icons = (left2 & FLAG != 0, right2 & FLAG != 0);
    }

    fn set_and_run(&mut self, s: &SetAndRun, now_ms: u64) {
        if !self.icons_persist {
            self.flag_icons = (false, false);
        }
        self.left = s.left.total_seconds();
        self.right = s.right.total_seconds();
        self.left_final = false;
        self.right_final = false;
        self.last_set_and_run = Some(*s);
        let RunFlags(flags) = s.flags;
        self.toggle_on_lever = flags & RunFlags::TOGGLE_ON_LEVER != 0 || flags & 0x03 == 0x03;
        let side = if flags & RunFlags::PAUSED.0 != 0 {
            Running::None
        } else {
            match flags & 0x03 {
                0x01 => Running::Left,
                0x02 => Running::Right,
                0x03 if self.right_high => Running::Right,
                0x03 => Running::Left,
                _ => Running::None,
            }
        };
        self.start(side, now_ms);
    }

    /// The BWTIME report the board reads from the clock now.
    pub(crate) fn report(&self) -> ClockReport {
        if !self.alive() {
            return ClockReport::from_status(
                ClockSide::default(),
                ClockSide::default(),
                STATUS_NO_CLOCK,
            );
        }
        let side = |secs: u32, final_flag: bool| ClockSide {
            time: ClockTime::saturating_from_total_seconds(secs),
            // The capture of a real flag fall (spec §9.1) has bit 4 without bit 6.
            flag: false,
            final_flag,
            time_per_move: false,
        };
        let mut status = if self.right_high {
            STATUS_RIGHT_HIGH | STATUS_RIGHT_TURN
        } else {
            STATUS_LEFT_TURN
        };
        if self.running != Running::None {
            status |= STATUS_RUNNING;
        }
        if self.battery_low {
            status |= STATUS_BATTERY_LOW;
        }
        ClockReport::from_status(
            side(self.left, self.left_final),
            side(self.right, self.right_final),
            status,
        )
    }
}

/// The DGT XL segment bytes read back as characters (first match in the 7-segment table;
/// `?` for patterns the table does not have).
fn segments_text(segments: &[u8; 6]) -> String {
    let table: Vec<(char, u8)> = (' '..='~')
        .filter_map(|c| seven_segment(c).map(|s| (c.to_ascii_lowercase(), s)))
        .collect();
    let text: String = segments
        .iter()
        .map(|seg| {
            table
                .iter()
                .find(|(_, s)| s == seg)
                .map_or('?', |(c, _)| *c)
        })
        .collect();
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock_command::{ClockCommandId, RunSide};

    fn t(s: u32) -> ClockTime {
        ClockTime::from_total_seconds(s).expect("in range")
    }

    #[test]
    fn counts_down_and_freezes_at_zero() {
        let mut c = Clock::new(ClockModel::Dgt3000, true, true, true);
        let cmd = ClockCommand::SetAndRun(SetAndRun::new(t(2), t(60), RunSide::Left));
        assert_eq!(
            c.execute(&cmd, 0),
            Some(ClockAck::ok(ClockCommandId::SetAndRun))
        );
        assert_eq!(c.advance(999), Vec::<u64>::new());
        assert_eq!(c.advance(1000), vec![1000]);
        assert_eq!(c.left, 1);
        assert_eq!(c.advance(5000), vec![2000]);
        assert_eq!((c.left, c.left_final, c.running), (0, true, Running::None));
        assert_eq!(c.right, 60);
    }

    #[test]
    fn flag_icons_are_set_kept_across_time_changes_only_when_asked_and_may_be_ignored() {
        let icons = |left2, right2, special| ClockCommand::Icons {
            left1: 0,
            right1: 0,
            left2,
            right2,
            special,
        };
        let sar = ClockCommand::SetAndRun(SetAndRun::new(t(60), t(60), RunSide::Left));
        let mut c = Clock::new(ClockModel::Dgt3000, true, true, true);
        assert_eq!(
            c.execute(&icons(0x20, 0, 0x40), 0),
            Some(ClockAck::ok(ClockCommandId::Icons))
        );
        assert_eq!(c.flag_icons, (true, false));
        c.execute(&sar, 0);
        assert_eq!(c.flag_icons, (true, false), "bit 6: kept across times");
        c.execute(&icons(0, 0x20, 0), 0);
        assert_eq!(c.flag_icons, (false, true));
        c.execute(&sar, 0);
        assert_eq!(
            c.flag_icons,
            (false, false),
            "no bit 6: cleared by the times"
        );
        c.takes_icons = false;
        assert_eq!(
            c.execute(&icons(0x20, 0x20, 0x40), 0),
            None,
            "ignored, no ack"
        );
        assert_eq!(c.flag_icons, (false, false));
    }

    #[test]
    fn xl_segments_read_back() {
        assert_eq!(
            segments_text(&[0x00, 0x7B, 0x5B, 0x00, 0x7B, 0x66]),
            " e2 e4"
        );
    }
}

#[cfg(test)]
mod own_preset_tests {
    use super::*;

    fn own(period: OwnPeriod) -> Clock {
        let mut c = Clock::new(ClockModel::Dgt3000, true, true, false);
        c.start_own_game(
            OwnPreset {
                seconds: 10,
                period: Some(period),
            },
            0,
        );
        c
    }

    #[test]
    fn a_period_at_a_move_goes_to_the_half_whose_player_made_it_once() {
        let mut c = own(OwnPeriod {
            add: 60,
            at_move: Some(2),
        });
        c.advance(2_000);
        c.press_lever(2_000); // left's move 1
        c.press_lever(2_000); // right's move 1
        assert_eq!((c.left, c.right), (8, 10));
        c.press_lever(2_000); // left's move 2: +60
        assert_eq!((c.left, c.right), (68, 10));
        c.press_lever(2_000); // right's move 2: +60
        c.press_lever(2_000); // left's move 3: nothing more
        assert_eq!((c.left, c.right), (68, 70));
    }

    #[test]
    fn a_period_on_the_flag_keeps_the_half_running_once() {
        let mut c = own(OwnPeriod {
            add: 5,
            at_move: None,
        });
        c.advance(10_000);
        assert_eq!((c.left, c.running, c.left_final), (5, Running::Left, false));
        c.advance(15_000);
        assert_eq!((c.left, c.running, c.left_final), (0, Running::None, true));
    }
}
