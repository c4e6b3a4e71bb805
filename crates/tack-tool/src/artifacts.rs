//! The artifact store: full outputs that were cut to fit a budget, kept with
//! the session so the model can read any part back with ReadOutput.
//!
//! Artifacts are plain files, `<dir>/<id>.txt`, one per cut output. The
//! directory lives beside the session transcript, so a resumed session can
//! still read the artifacts of its earlier turns.

use std::path::{Path, PathBuf};

/// Why an artifact could not be saved or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArtifactError {
    #[error("cannot save the full output to {path}: {source}")]
    Save {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no artifact {id:?} in this session")]
    NotFound { id: String },
    #[error("cannot read artifact {id:?}: {source}")]
    Read { id: String, source: std::io::Error },
    #[error("{0:?} is not an artifact id: ids look like art_toolu_01A")]
    BadId(String),
}

/// Where a session's artifacts are kept.
#[derive(Debug, Clone)]
pub struct ArtifactStore {
    dir: PathBuf,
}

impl ArtifactStore {
    /// A store in `dir` (created on first save).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `<state>/artifacts/<session_id>`.
    pub fn for_session(state_dir: &Path, session_id: &str) -> Self {
        Self::new(state_dir.join("artifacts").join(session_id))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The id of the artifact of one tool call.
    pub fn id_for(tool_use_id: &str) -> String {
        let clean: String = tool_use_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("art_{clean}")
    }

    /// Saves `text` as the artifact of `tool_use_id` and returns its id.
    pub fn save(&self, tool_use_id: &str, text: &str) -> Result<String, ArtifactError> {
        let id = Self::id_for(tool_use_id);
        let path = self.path(&id)?;
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|source| ArtifactError::Save { path, source })?;
        Ok(id)
    }

    /// Whether the artifact `id` has been saved.
    pub fn exists(&self, id: &str) -> bool {
        self.path(id).is_ok_and(|p| p.is_file())
    }

    /// Reads a whole artifact.
    pub fn read(&self, id: &str) -> Result<String, ArtifactError> {
        let path = self.path(id)?;
        match std::fs::read(&path) {
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(ArtifactError::NotFound { id: id.to_owned() })
            }
            Err(source) => Err(ArtifactError::Read {
                id: id.to_owned(),
                source,
            }),
        }
    }

    fn path(&self, id: &str) -> Result<PathBuf, ArtifactError> {
        let valid = id.starts_with("art_")
            && id.len() <= 200
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(ArtifactError::BadId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.txt")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_read_and_reject_path_tricks() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(dir.path().join("a"));
        let id = store.save("toolu_01/x", "héllo").unwrap();
        assert_eq!(id, "art_toolu_01_x");
        assert_eq!(store.read(&id).unwrap(), "héllo");
        assert!(matches!(
            store.read("art_nope"),
            Err(ArtifactError::NotFound { .. })
        ));
        assert!(matches!(
            store.read("../../etc/passwd"),
            Err(ArtifactError::BadId(_))
        ));
        assert!(matches!(
            store.read("art_../x"),
            Err(ArtifactError::BadId(_))
        ));
    }
}
