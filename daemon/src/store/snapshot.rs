//! Snapshots, replaced atomically through [`super::atomic`] (`NAME.snapshot.tmp`, fsync,
//! rename over `NAME.snapshot`, fsync the directory). A reader sees the old snapshot or the
//! new one, never a mix.
//!
//! Owns the snapshot file only; the journal decides when to write one.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::atomic;
use super::error::StoreError;
use super::line;

pub(crate) fn snapshot_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.snapshot"))
}

/// fsync a directory so a rename or create in it survives power loss.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    atomic::sync_dir(dir).map_err(|e| StoreError::io("sync directory", dir, e))
}

/// Atomically replace the snapshot `NAME` in `dir` with `state`, tagged with `seq` (the last
/// journal entry it includes).
pub fn write_snapshot<S: Serialize>(
    dir: &Path,
    name: &str,
    seq: u64,
    state: &S,
) -> Result<(), StoreError> {
    let json = super::line::to_json(state).map_err(|source| StoreError::Encode {
        what: "snapshot",
        source,
    })?;
    let dest = snapshot_path(dir, name);
    atomic::write_atomic(&dest, &line::encode(seq, &json))
        .map_err(|e| StoreError::io("write", &dest, e))
}

/// Read the snapshot `NAME` in `dir`: `Ok(None)` if there is none, else its `seq` and state.
/// A leftover temp file from an interrupted write is removed.
pub fn read_snapshot<S: DeserializeOwned>(
    dir: &Path,
    name: &str,
) -> Result<Option<(u64, S)>, StoreError> {
    let tmp = atomic::temp_path(&snapshot_path(dir, name));
    match fs::remove_file(&tmp) {
        Ok(()) => sync_dir(dir)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io("remove", &tmp, e)),
    }
    let path = snapshot_path(dir, name);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io("read", &path, e)),
    };
    let corrupt = |reason: String| StoreError::CorruptSnapshot {
        path: path.clone(),
        reason,
    };
    let Some(body) = bytes.strip_suffix(b"\n") else {
        return Err(corrupt("it does not end with a newline".to_owned()));
    };
    if body.contains(&b'\n') {
        return Err(corrupt("it has more than one line".to_owned()));
    }
    let (seq, json) = line::decode(body).map_err(corrupt)?;
    let state = super::line::from_json(json).map_err(|e| StoreError::Decode {
        path: path.clone(),
        seq,
        offset: 0,
        reason: e.to_string(),
    })?;
    Ok(Some((seq, state)))
}
