//! Writing generated files: whole or not at all, and not at all when nothing changed (so
//! cargo does not rebuild what includes them).
use std::io::Write as _;
use std::path::Path;

/// Writes `text` to `path` through a temporary file in the same directory, so a reader (or
/// a failed run) never sees a partial file and an existing file is replaced only whole.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// [`write_atomic`], skipped when the file already holds `text`. Returns whether it wrote.
pub fn write_if_changed(path: &Path, text: &str) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(false);
    }
    write_atomic(path, text)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_changes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("a.rs");
        assert!(write_if_changed(&p, "x").expect("write"));
        assert!(!write_if_changed(&p, "x").expect("same"));
        assert!(write_if_changed(&p, "y").expect("changed"));
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "y");
    }
}
