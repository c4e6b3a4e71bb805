//! The terminal backend: crossterm's, except that it never asks the
//! terminal where the cursor is once the session runs.
//!
//! ratatui asks (`ESC [ 6 n`) when an inline viewport is resized or cleared.
//! The answer comes back on stdin, where the UI's event stream is reading
//! keys at the same time: the two race for it, and the loser waits out
//! crossterm's two-second timeout and fails the draw. The cursor is where
//! tack last put it (every frame sets it in the input area), so this backend
//! remembers that and answers from memory; only the first question, asked
//! when the viewport is placed and before any key is read, goes to the
//! terminal.

use std::io::Write;

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

pub(crate) struct Tracked<W: Write> {
    inner: CrosstermBackend<W>,
    cursor: Option<Position>,
}

impl<W: Write> Tracked<W> {
    pub(crate) fn new(writer: W) -> Self {
        Self {
            inner: CrosstermBackend::new(writer),
            cursor: None,
        }
    }

    fn clamp(&self, position: Position) -> Position {
        match self.inner.size() {
            Ok(size) => Position::new(
                position.x.min(size.width.saturating_sub(1)),
                position.y.min(size.height.saturating_sub(1)),
            ),
            Err(_) => position,
        }
    }
}

impl<W: Write> Backend for Tracked<W> {
    type Error = std::io::Error;

    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }

    fn append_lines(&mut self, n: u16) -> std::io::Result<()> {
        if let Some(cursor) = self.cursor {
            self.cursor = Some(self.clamp(Position::new(cursor.x, cursor.y.saturating_add(n))));
        }
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> std::io::Result<()> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> std::io::Result<()> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> std::io::Result<Position> {
        match self.cursor {
            // The size may have changed since (a resize): keep it on screen.
            Some(cursor) => Ok(self.clamp(cursor)),
            None => {
                let cursor = self.inner.get_cursor_position()?;
                self.cursor = Some(cursor);
                Ok(cursor)
            }
        }
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> std::io::Result<()> {
        let position = position.into();
        self.cursor = Some(position);
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> std::io::Result<()> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> std::io::Result<()> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> std::io::Result<Size> {
        self.inner.size()
    }

    fn window_size(&mut self) -> std::io::Result<WindowSize> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Backend::flush(&mut self.inner)
    }

    fn scroll_region_up(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> std::io::Result<()> {
        self.inner.scroll_region_up(region, line_count)
    }

    fn scroll_region_down(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> std::io::Result<()> {
        self.inner.scroll_region_down(region, line_count)
    }
}
