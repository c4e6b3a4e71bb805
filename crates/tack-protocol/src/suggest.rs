//! "Did you mean …?": the one measure every part of tack uses to suggest the
//! name a person probably meant (a settings key, a tool, a placeholder).

/// The known name closest to `name` (case-insensitive optimal string
/// alignment distance: a swap of neighbours is one edit, `Raed` → `Read`), if
/// it is close enough to be what was meant: at most a third of the name's
/// length, and never more than 3 edits.
///
/// ```
/// use tack_protocol::suggest::closest;
/// assert_eq!(closest("Raed", &["Read", "Edit"]), Some("Read"));
/// assert_eq!(closest("Frobnicate", &["Read", "Edit"]), None);
/// ```
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).clamp(1, 3);
    known
        .iter()
        .map(|k| (strsim::osa_distance(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}
