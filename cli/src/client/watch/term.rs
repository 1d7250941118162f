//! The terminal of `watch` and `fleet`: the alternate screen, raw mode and a hidden cursor while it runs,
//! restored on every way out (return, error, panic; signals end the loop so the guard drops),
//! keys read on a thread of their own, and frames written line by line where they changed.
//!
//! Owns the terminal's modes only; what is drawn is [`super::layout`]'s.

use std::io::{self, Write};
use std::sync::Once;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, queue, terminal};
use tokio::sync::mpsc;

/// What the operator asked for at the keyboard (or the terminal did).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    Quit,
    NextPage,
    PreviousPage,
    /// The terminal changed size.
    Resized,
}

/// The terminal in `watch`'s modes; dropping it restores them.
#[derive(Debug)]
pub(crate) struct Terminal {
    drawn: Vec<String>,
}

impl Terminal {
    /// Enter the alternate screen, raw mode, cursor hidden.
    pub(crate) fn enter() -> io::Result<Terminal> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, cursor::Hide) {
            restore();
            return Err(e);
        }
        Ok(Terminal { drawn: Vec::new() })
    }

    /// The terminal's size, columns × rows.
    pub(super) fn size() -> (u16, u16) {
        terminal::size().unwrap_or((80, 24))
    }

    /// Draw `lines`, rewriting only the lines that changed.
    pub(crate) fn draw(&mut self, lines: &[String]) -> io::Result<()> {
        let mut out = io::stdout().lock();
        for (row, line) in lines.iter().enumerate() {
            if self.drawn.get(row) == Some(line) {
                continue;
            }
            let row = u16::try_from(row).unwrap_or(u16::MAX);
            queue!(
                out,
                cursor::MoveTo(0, row),
                crossterm::style::Print(line),
                terminal::Clear(terminal::ClearType::UntilNewLine)
            )?;
        }
        if lines.len() < self.drawn.len() {
            let row = u16::try_from(lines.len()).unwrap_or(u16::MAX);
            queue!(
                out,
                cursor::MoveTo(0, row),
                terminal::Clear(terminal::ClearType::FromCursorDown)
            )?;
        }
        out.flush()?;
        self.drawn = lines.to_vec();
        Ok(())
    }

    /// Forget what is on the screen (after a resize): the next frame is drawn whole.
    pub(crate) fn invalidate(&mut self) -> io::Result<()> {
        self.drawn.clear();
        execute!(io::stdout(), terminal::Clear(terminal::ClearType::All))
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave raw mode and the alternate screen, show the cursor. Safe to call twice.
fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), cursor::Show, terminal::LeaveAlternateScreen);
}

/// Read the keyboard on a thread of its own (blocking reads; the thread ends with the
/// process) and send what matters.
pub(crate) fn keys() -> mpsc::UnboundedReceiver<Input> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(ev) = event::read() {
            let input = match ev {
                Event::Key(key) => match meaning(key) {
                    Some(i) => i,
                    None => continue,
                },
                Event::Resize(..) => Input::Resized,
                _ => continue,
            };
            if tx.send(input).is_err() {
                return;
            }
        }
    });
    rx
}

/// What a key means, if anything.
fn meaning(key: KeyEvent) -> Option<Input> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('c' | 'd') if ctrl => Input::Quit,
        KeyCode::Char('q' | 'Q') | KeyCode::Esc => Input::Quit,
        KeyCode::Char(' ' | 'n' | 'j') | KeyCode::PageDown | KeyCode::Right | KeyCode::Down => {
            Input::NextPage
        }
        KeyCode::Char('p' | 'b' | 'k') | KeyCode::PageUp | KeyCode::Left | KeyCode::Up => {
            Input::PreviousPage
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_mean_quit_or_paging() {
        let key = |code, modifiers| KeyEvent::new(code, modifiers);
        let none = KeyModifiers::NONE;
        assert_eq!(meaning(key(KeyCode::Char('q'), none)), Some(Input::Quit));
        assert_eq!(
            meaning(key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Input::Quit)
        );
        assert_eq!(meaning(key(KeyCode::Char('c'), none)), None);
        assert_eq!(
            meaning(key(KeyCode::Char(' '), none)),
            Some(Input::NextPage)
        );
        assert_eq!(
            meaning(key(KeyCode::PageUp, none)),
            Some(Input::PreviousPage)
        );
        assert_eq!(meaning(key(KeyCode::Char('x'), none)), None);
    }
}
