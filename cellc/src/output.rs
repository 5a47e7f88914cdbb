//! Writing generated files: all of them whole or none at all. A new file gets the mode the
//! umask gives; a replaced file keeps its mode; a symbolic link is written through to its
//! target; a device or FIFO is written to in place.
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Where one file's text goes.
enum Plan {
    /// A regular file (or none yet): a temporary file beside it, renamed over it at the
    /// end; `old` is what it held, to put back if a later file fails.
    Replace { target: PathBuf, tmp: tempfile::NamedTempFile, old: Option<Vec<u8>> },
    /// A device or FIFO: written in place, last.
    InPlace(PathBuf),
}

/// The file `path` names: itself, or the target of the symbolic link it is.
fn target(path: &Path) -> std::io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(t) => Ok(t),
            // A dangling link: create its target.
            Err(_) => {
                let link = std::fs::read_link(path)?;
                Ok(path.parent().map_or_else(|| link.clone(), |d| d.join(&link)))
            }
        },
        _ => Ok(path.to_path_buf()),
    }
}

fn plan(path: &Path, bytes: &[u8]) -> std::io::Result<Plan> {
    let target = target(path)?;
    let meta = std::fs::metadata(&target).ok();
    if meta.as_ref().is_some_and(|m| !m.is_file() && !m.is_dir()) {
        return Ok(Plan::InPlace(target));
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    // The mode an ordinary `open` would give: 0666 less the umask, or the replaced file's.
    #[cfg(unix)]
    let perms = {
        use std::os::unix::fs::PermissionsExt as _;
        meta.as_ref().map_or_else(|| std::fs::Permissions::from_mode(0o666), std::fs::Metadata::permissions)
    };
    #[cfg(unix)]
    builder.permissions(perms.clone());
    // Said of the folder the user named, not of the temporary file made in it.
    let mut tmp = builder.tempfile_in(dir).map_err(|e| {
        let why = match std::fs::metadata(dir) {
            Err(_) => "no such folder".to_owned(),
            Ok(m) if !m.is_dir() => "it is not a folder".to_owned(),
            Ok(_) => std::io::Error::from(e.kind()).to_string(),
        };
        std::io::Error::new(e.kind(), format!("cannot create a file in {}: {why}", dir.display()))
    })?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    if meta.is_some() {
        // Creation applied the umask; a replaced file keeps exactly the mode it had.
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.as_file().sync_all()?;
    let old = match meta {
        Some(m) if m.is_file() => Some(std::fs::read(&target)?),
        _ => None,
    };
    Ok(Plan::Replace { target, tmp, old })
}

/// Puts back what a replaced file held (or removes a file that was new).
fn restore(target: &Path, old: Option<Vec<u8>>) {
    let _ = match old {
        Some(bytes) => std::fs::write(target, bytes),
        None => std::fs::remove_file(target),
    };
}

/// Writes every `(path, bytes)`: each through a temporary file in its directory renamed over
/// it, after all of them are written, so a reader (or a failed run) never sees a partial
/// file; if replacing one fails, those replaced before it get their old contents back.
pub fn write_all_or_none(files: &[(PathBuf, Vec<u8>)]) -> Result<(), (PathBuf, std::io::Error)> {
    let mut plans = Vec::new();
    for (path, text) in files {
        plans.push((plan(path, text).map_err(|e| (path.clone(), e))?, text));
    }
    let mut done: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
    let mut in_place = Vec::new();
    for (p, text) in plans {
        match p {
            Plan::Replace { target, tmp, old } => {
                if let Err(e) = tmp.persist(&target) {
                    for (t, old) in done.into_iter().rev() {
                        restore(&t, old);
                    }
                    return Err((target, e.error));
                }
                done.push((target, old));
            }
            Plan::InPlace(target) => in_place.push((target, text)),
        }
    }
    for (target, text) in in_place {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .and_then(|mut f| f.write_all(text))
            .map_err(|e| (target, e))?;
    }
    Ok(())
}

/// [`write_all_or_none`] for one file.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    write_all_or_none(&[(path.to_path_buf(), text.as_bytes().to_vec())]).map_err(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("a.rs");
        write_atomic(&p, "x").expect("write");
        write_atomic(&p, "y").expect("replace");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "y");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 1, "temporary files left");
    }

    #[cfg(unix)]
    #[test]
    fn modes_links_and_devices() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("temp dir");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        // A new file: the mode `File::create` gives (0666 less the umask), not a temporary
        // file's 0600.
        let new = dir.path().join("new.rs");
        write_atomic(&new, "a").expect("write");
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference).expect("create");
        assert_eq!(mode(&new), mode(&reference), "a new file must get 0666 less the umask");
        // A replaced file keeps its mode.
        std::fs::set_permissions(&new, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        write_atomic(&new, "b").expect("replace");
        assert_eq!(mode(&new), 0o640);
        // A link is written through: it stays a link, its target changes.
        let link = dir.path().join("link.rs");
        std::os::unix::fs::symlink(&new, &link).expect("symlink");
        write_atomic(&link, "c").expect("through the link");
        assert!(std::fs::symlink_metadata(&link).expect("lstat").file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&new).expect("read"), "c");
        // A device is written to, not replaced.
        write_atomic(Path::new("/dev/null"), "d").expect("a device");
        assert!(!std::fs::metadata("/dev/null").expect("stat").is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_second_file_puts_the_first_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let h = dir.path().join("m.h");
        std::fs::write(&h, "old header").expect("write");
        // The source's path is a directory that holds a file: renaming over it fails.
        let c = dir.path().join("m.c");
        std::fs::create_dir(&c).expect("mkdir");
        std::fs::write(c.join("keep"), "x").expect("write");
        let files = vec![(h.clone(), b"new header".to_vec()), (c.clone(), b"source".to_vec())];
        let (failed, _) = write_all_or_none(&files).expect_err("the source cannot be written");
        assert_eq!(failed, c);
        assert_eq!(std::fs::read_to_string(&h).expect("read"), "old header");
        let names: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(names.len(), 2, "temporary files left: {names:?}");
        // A new first file is removed again.
        std::fs::remove_file(&h).expect("rm");
        write_all_or_none(&files).expect_err("the source cannot be written");
        assert!(!h.exists());
    }
}
