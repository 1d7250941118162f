//! What the clock's display still has to be given: the push due and the text queued. It
//! decides when to push, not what is shown.

use std::collections::VecDeque;

use crate::session::announce::Announcement;

/// What the clock's display still has to be given. Invariant: `refresh` implies a push
/// although the shown values did not change; `dirty` that they did; one push answers both
/// ([`DisplayWork::take_push`]); at most [`MAX_ANNOUNCEMENTS`] wait.
#[derive(Debug, Default)]
pub(crate) struct DisplayWork {
    /// Game events to show as text, one after another, once the times have been pushed.
    announcements: VecDeque<Announcement>,
    /// The display must be pushed (the game changed).
    dirty: bool,
    /// The display must be pushed again although nothing changed (a re-sync instant, the
    /// clock became usable, text ended).
    refresh: bool,
}

/// Game events waiting to be shown as text, at most.
const MAX_ANNOUNCEMENTS: usize = 3;

impl DisplayWork {
    /// The game changed: push the display.
    pub(crate) fn changed(&mut self) {
        self.dirty = true;
    }

    /// Push the display again although nothing changed.
    pub(crate) fn refresh(&mut self) {
        self.refresh = true;
    }

    /// Whether the game changed since the last push.
    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The next game event to show as text.
    pub(crate) fn next_announcement(&mut self) -> Option<Announcement> {
        self.announcements.pop_front()
    }

    /// Forget the game events waiting (nothing can show them).
    pub(crate) fn clear_announcements(&mut self) {
        self.announcements.clear();
    }

    /// Queue `a` to be shown; only the latest few are kept (a backlog of stale news helps
    /// nobody).
    pub(crate) fn announce(&mut self, a: Announcement) {
        if self.announcements.len() == MAX_ANNOUNCEMENTS {
            self.announcements.pop_front();
        }
        self.announcements.push_back(a);
    }

    /// Whether the times are to be pushed now (`differs`: the device would show other
    /// times by its own countdown); a push answers both the change and the refresh.
    pub(crate) fn take_push(&mut self, differs: bool) -> bool {
        let push = self.dirty || self.refresh || differs;
        if push {
            self.dirty = false;
            self.refresh = false;
        }
        push
    }
}

#[cfg(test)]
mod tests {
    use super::DisplayWork;
    use crate::session::announce::Announcement;

    #[test]
    fn the_display_keeps_the_latest_three_announcements_and_one_push_answers_all() {
        let mut display = DisplayWork::default();
        for n in 0..5 {
            display.announce(Announcement {
                text: n.to_string(),
                beep: false,
            });
        }
        let texts: Vec<_> = display
            .announcements
            .iter()
            .map(|a| a.text.as_str())
            .collect();
        assert_eq!(texts, ["2", "3", "4"], "the latest few");
        assert!(!display.take_push(false), "nothing to push");
        assert!(display.take_push(true), "the device would show other times");
        display.dirty = true;
        display.refresh = true;
        assert!(display.take_push(false));
        assert!(
            !display.take_push(false),
            "one push answers the change and the refresh"
        );
    }
}
