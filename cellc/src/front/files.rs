//! Reading input files within bounds: only regular files (a device or a FIFO would never
//! end, or never start), never more than a stated number of bytes, of a weights file only
//! the byte ranges its constants name, and for a macro only files inside its crate.
use crate::limits::{MAX_CONSTANT_BYTES, MAX_MODEL_FILE_BYTES};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

/// Opens `path` for reading if it is a regular file (after following symbolic links), with
/// its length.
fn open_regular(path: &Path) -> Result<(std::fs::File, u64), String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file (a device, FIFO or socket)" };
        return Err(format!("it is {what}"));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    Ok((file, meta.len()))
}

/// The text of a model file: a regular file of at most [`MAX_MODEL_FILE_BYTES`], in UTF-8.
pub fn read_text(path: &Path) -> Result<String, String> {
    let (file, len) = open_regular(path)?;
    if len > MAX_MODEL_FILE_BYTES {
        return Err(format!("it holds {len} bytes; cellc reads model files of at most {MAX_MODEL_FILE_BYTES} bytes"));
    }
    let mut text = String::new();
    // The file may grow after its length was read: the cap holds whatever it does.
    file.take(MAX_MODEL_FILE_BYTES + 1).read_to_string(&mut text).map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_MODEL_FILE_BYTES {
        return Err(format!("it holds more than {MAX_MODEL_FILE_BYTES} bytes, the most cellc reads of a model file"));
    }
    Ok(text)
}

/// The bytes of a regular file of exactly `want` bytes; `Err(Some(len))` when it holds
/// another number of bytes (nothing of it read), `Err(None)` with `why` when it cannot be read.
pub fn read_exact(path: &Path, want: u64) -> Result<Vec<u8>, (Option<u64>, String)> {
    let (file, len) = open_regular(path).map_err(|e| (None, e))?;
    if len != want {
        return Err((Some(len), String::new()));
    }
    let mut bytes = Vec::new();
    file.take(want).read_to_end(&mut bytes).map_err(|e| (None, e.to_string()))?;
    if bytes.len() as u64 != want {
        return Err((Some(bytes.len() as u64), String::new()));
    }
    Ok(bytes)
}

/// Reads the byte ranges `(offset, size)` of a weights file that lie inside it and are at
/// most [`MAX_CONSTANT_BYTES`] long; the caller reports the others from the file's length.
pub fn read_ranges(path: &Path, ranges: &[(u64, u64)]) -> Result<crate::vocab::WeightData, String> {
    let (mut file, len) = open_regular(path)?;
    let mut data = crate::vocab::WeightData::new(len);
    for &(offset, size) in ranges {
        let inside = offset.checked_add(size).is_some_and(|end| end <= len);
        if !inside || size > MAX_CONSTANT_BYTES || data.get(offset, size).is_some() {
            continue;
        }
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(offset)).map_err(|e| e.to_string())?;
        (&mut file).take(size).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        // A file that shrank since its length was read leaves the range unread.
        if bytes.len() as u64 == size {
            data.insert(offset, bytes);
        }
    }
    Ok(data)
}

/// The path of a file a macro names, relative to `root` (the crate's manifest directory):
/// it must lie inside the crate, unless `allowed` (a macro must not read, nor report the
/// size of, files elsewhere on the machine by default).
pub fn inside_crate(root: &Path, lit: &syn::LitStr, allowed: bool) -> syn::Result<PathBuf> {
    let path = root.join(lit.value());
    if allowed {
        return Ok(path);
    }
    // Links resolved where the file exists; `..` resolved by its text where it does not
    // (its reader reports it missing).
    let resolve = |p: &Path| {
        p.canonicalize().unwrap_or_else(|_| {
            let mut out = PathBuf::new();
            for c in p.components() {
                match c {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::CurDir => {}
                    c => out.push(c),
                }
            }
            out
        })
    };
    let escapes = !resolve(&path).starts_with(resolve(root));
    if escapes {
        let msg = format!(
            "{:?} lies outside the crate ({}); a macro reads files inside the crate only, unless told otherwise: add `allow_outside_crate = true`",
            lit.value(),
            root.display()
        );
        return Err(syn::Error::new(lit.span(), msg));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let e = read_text(dir.path()).expect_err("a directory");
        assert!(e.contains("directory"), "{e}");
        #[cfg(unix)]
        {
            let e = read_text(Path::new("/dev/zero")).expect_err("a device");
            assert!(e.contains("not a regular file"), "{e}");
            let e = read_ranges(Path::new("/dev/zero"), &[(0, 4)]).expect_err("a device");
            assert!(e.contains("not a regular file"), "{e}");
        }
    }

    #[test]
    fn reads_only_the_ranges_inside_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().join("w.bin");
        std::fs::write(&p, (0u8..16).collect::<Vec<_>>()).expect("write");
        let d = read_ranges(&p, &[(4, 4), (14, 4), (u64::MAX, 2), (0, 0)]).expect("read");
        assert_eq!(d.len(), 16);
        assert_eq!(d.get(4, 4), Some(&[4u8, 5, 6, 7][..]));
        assert_eq!(d.get(14, 4), None);
        assert_eq!(d.get(u64::MAX, 2), None);
        assert_eq!(d.get(0, 0), Some(&[][..]));
    }
}
