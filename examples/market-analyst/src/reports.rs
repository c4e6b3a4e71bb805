//! Saved reports: Markdown files with a small header, in one folder
//! (`./reports` of the working directory, or `$MARKET_ANALYST_REPORTS`).
//!
//! ```text
//! ---
//! ticker: AAPL
//! title: Apple overview
//! created: 2026-12-02T10:31:07Z
//! ---
//! # Apple overview
//! …
//! ```
//! A report's id is its file name without `.md`: `aapl-apple-overview`.
//! Saving is idempotent: the same ticker, title and body saved again is
//! the report already there; a different body under the same title gets
//! a new id (`…-2`), so nothing is overwritten.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::ErrorKind;

/// The variable naming the reports folder.
pub const REPORTS_ENV: &str = "MARKET_ANALYST_REPORTS";

/// The longest title a report may have, in characters.
pub const MAX_TITLE: usize = 200;

/// Why a report could not be listed, read or saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The id, ticker, title or body is not acceptable (the message says why).
    #[error("{0}")]
    Invalid(String),
    /// The folder or a file could not be read or written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl ReportError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReportError::Invalid(_) => ErrorKind::InvalidInput,
            ReportError::Io { .. } => ErrorKind::Internal,
        }
    }
}

/// One report in a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportSummary {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticker: Option<String>,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    pub path: String,
    pub bytes: u64,
}

/// One report, whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticker: Option<String>,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    pub path: String,
    pub body: String,
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Saved {
    pub id: String,
    pub path: String,
    /// False: the same report was there already and nothing was written.
    pub created: bool,
}

/// The reports folder.
#[derive(Debug, Clone)]
pub struct ReportStore {
    dir: PathBuf,
}

impl ReportStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `$MARKET_ANALYST_REPORTS` (relative to `cwd` when relative), else `cwd/reports`.
    pub fn from_env(cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> Self {
        match env(REPORTS_ENV).filter(|v| !v.trim().is_empty()) {
            Some(dir) => Self::new(cwd.join(dir)),
            None => Self::new(cwd.join("reports")),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every report, newest first (then by id); a missing folder has none.
    pub fn list(&self) -> Result<Vec<ReportSummary>, ReportError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(ReportError::Io {
                    what: "cannot read the reports folder",
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut reports = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = report_id(&path) else {
                continue;
            };
            let report = self.read(&id, &path)?;
            reports.push(ReportSummary {
                bytes: report.body.len() as u64,
                id: report.id,
                ticker: report.ticker,
                title: report.title,
                created: report.created,
                path: report.path,
            });
        }
        reports.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.id.cmp(&b.id)));
        Ok(reports)
    }

    /// The report `id`.
    pub fn show(&self, id: &str) -> Result<Report, ReportError> {
        check_id(id)?;
        let path = self.dir.join(format!("{id}.md"));
        if !path.is_file() {
            let ids: Vec<String> = self.list()?.into_iter().map(|r| r.id).collect();
            let known: Vec<&str> = ids.iter().map(String::as_str).collect();
            let hint = match tack_protocol::suggest::closest(id, &known) {
                Some(near) => format!("; did you mean {near:?}?"),
                None if ids.is_empty() => "; there are no reports yet".to_owned(),
                None => format!("; the reports are: {}", ids.join(", ")),
            };
            return Err(ReportError::Invalid(format!(
                "no report has the id {id:?} in {}{hint}",
                self.dir.display()
            )));
        }
        self.read(id, &path)
    }

    /// Saves a report of `ticker` (as listed) titled `title`, created at
    /// `now` (RFC 3339).
    pub fn save(
        &self,
        ticker: &str,
        title: &str,
        body: &str,
        now: &str,
    ) -> Result<Saved, ReportError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > MAX_TITLE || title.contains(['\n', '\r']) {
            return Err(ReportError::Invalid(format!(
                "the title must be one line of 1 to {MAX_TITLE} characters"
            )));
        }
        if body.trim().is_empty() {
            return Err(ReportError::Invalid(
                "the report body is empty: pass the Markdown on stdin".into(),
            ));
        }
        std::fs::create_dir_all(&self.dir).map_err(|source| ReportError::Io {
            what: "cannot create the reports folder",
            path: self.dir.clone(),
            source,
        })?;
        let base = format!("{}-{}", slug(ticker), slug(title));
        let base = base.trim_matches('-').to_owned();
        for n in 1.. {
            let id = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let path = self.dir.join(format!("{id}.md"));
            if path.exists() {
                let existing = self.read(&id, &path)?;
                if existing.ticker.as_deref() == Some(ticker)
                    && existing.title == title
                    && existing.body.trim_end() == body.trim_end()
                {
                    return Ok(Saved {
                        id,
                        path: path.display().to_string(),
                        created: false,
                    });
                }
                continue;
            }
            let text = format!(
                "---\nticker: {ticker}\ntitle: {title}\ncreated: {now}\n---\n{}\n",
                body.trim_end()
            );
            write_new(&path, &text)?;
            return Ok(Saved {
                id,
                path: path.display().to_string(),
                created: true,
            });
        }
        Err(ReportError::Invalid("no free report id".into()))
    }

    fn read(&self, id: &str, path: &Path) -> Result<Report, ReportError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
            what: "cannot read the report",
            path: path.to_owned(),
            source,
        })?;
        let (header, body) = split_header(&text);
        let field = |key: &str| {
            header
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v).to_owned())
        };
        Ok(Report {
            id: id.to_owned(),
            ticker: field("ticker"),
            title: field("title").unwrap_or_else(|| id.to_owned()),
            created: field("created"),
            path: path.display().to_string(),
            body: body.to_owned(),
        })
    }
}

/// Writes a file that must not exist yet (a concurrent save of the same
/// id loses instead of overwriting).
fn write_new(path: &Path, text: &str) -> Result<(), ReportError> {
    use std::io::Write as _;
    let io = |source| ReportError::Io {
        what: "cannot write the report",
        path: path.to_owned(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)
}

/// The id of a report file: its stem, for a `.md` file whose stem is a valid id.
fn report_id(path: &Path) -> Option<String> {
    if path.extension()? != "md" || !path.is_file() {
        return None;
    }
    let id = path.file_stem()?.to_str()?.to_owned();
    check_id(&id).ok().map(|()| id)
}

/// An id names a file in the folder and nothing else: lower-case letters,
/// digits, `-` and `.`, not starting with `.` or `-`.
fn check_id(id: &str) -> Result<(), ReportError> {
    let ok = id
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        && !id.contains("..")
        && id.len() <= 120;
    if ok {
        Ok(())
    } else {
        Err(ReportError::Invalid(format!(
            "{id:?} is not a report id: ids are lower-case letters, digits, '-' and '.', as `reports list` shows them"
        )))
    }
}

/// Lower-case letters and digits, other runs of characters as one `-`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').chars().take(60).collect()
}

/// The `key: value` lines between two `---` lines at the top, and the rest.
fn split_header(text: &str) -> (Vec<(&str, &str)>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (Vec::new(), text);
    };
    let Some(end) = rest.find("\n---\n") else {
        return (Vec::new(), text);
    };
    let header = rest[..end]
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    (header, &rest[end + 5..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_list_show_and_save_again() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ReportStore::new(tmp.path().join("reports"));
        assert!(store.list().unwrap().is_empty());
        let saved = store
            .save(
                "BRK.B",
                "Berkshire: overview",
                "# Hi\n",
                "2026-12-01T10:00:00Z",
            )
            .unwrap();
        assert_eq!(saved.id, "brk-b-berkshire-overview");
        assert!(saved.created);
        let again = store
            .save(
                "BRK.B",
                "Berkshire: overview",
                "# Hi",
                "2026-12-02T10:00:00Z",
            )
            .unwrap();
        assert_eq!(
            (again.id.as_str(), again.created),
            (saved.id.as_str(), false)
        );
        let other = store
            .save(
                "BRK.B",
                "Berkshire: overview",
                "# Changed",
                "2026-12-03T10:00:00Z",
            )
            .unwrap();
        assert_eq!(other.id, "brk-b-berkshire-overview-2");
        let list = store.list().unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].id, other.id, "newest first");
        let report = store.show(&saved.id).unwrap();
        assert_eq!(report.ticker.as_deref(), Some("BRK.B"));
        assert_eq!(report.title, "Berkshire: overview");
        assert_eq!(report.body, "# Hi\n");
    }

    #[test]
    fn ids_cannot_leave_the_folder() {
        let store = ReportStore::new("/nonexistent");
        for id in ["../etc/passwd", "", ".hidden", "a/b", "-rf"] {
            assert!(
                matches!(store.show(id), Err(ReportError::Invalid(_))),
                "{id:?}"
            );
        }
    }
}
