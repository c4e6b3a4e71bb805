//! What a tool says about its output: how the budget stage may cut a result
//! that is over budget, and what to tell the model when it does. The budget
//! stage names no tool; each tool declares this.

use std::borrow::Cow;

/// How a result over budget is cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputCut {
    /// Keep the head and the tail (where errors and summaries usually are).
    #[default]
    HeadAndTail,
    /// Keep only the head (the rest is in order of relevance, or a listing).
    Head,
    /// The tool caps its own results: the budget never cuts them (ReadOutput,
    /// which pages through an artifact already).
    SelfLimited,
}

/// A tool's output behaviour.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputBehaviour {
    /// How to cut.
    pub cut: OutputCut,
    /// One sentence for the model on narrowing the call, added to the marker
    /// of a cut result, e.g. "You can also Read the file with offset and limit."
    pub narrowing_hint: Option<Cow<'static, str>>,
}

impl OutputBehaviour {
    /// Cut head and tail, with this hint.
    pub fn with_hint(hint: impl Into<Cow<'static, str>>) -> Self {
        Self {
            cut: OutputCut::HeadAndTail,
            narrowing_hint: Some(hint.into()),
        }
    }

    /// Never cut by the budget.
    pub fn self_limited() -> Self {
        Self {
            cut: OutputCut::SelfLimited,
            narrowing_hint: None,
        }
    }

    /// The same, cut with `cut`.
    pub fn cut(mut self, cut: OutputCut) -> Self {
        self.cut = cut;
        self
    }
}

/// The largest char boundary of `s` at or before `i`.
pub fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
