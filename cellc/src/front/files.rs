//! Reading input files within bounds: only regular files (a device or a FIFO would never
//! end, or never start), never more than a stated number of bytes, of a weights file only
//! the byte ranges its constants name, and for a macro only files inside its crate.
use crate::limits::{MAX_CONSTANT_BYTES, MAX_MODEL_FILE_BYTES};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

/// Why a file was not read.
#[derive(Debug)]
pub enum FileError {
    /// The system could not open or read it (missing, not permitted).
    Io(std::io::Error),
    /// It was to be text and is not UTF-8.
    NotText,
    /// It is a directory.
    Directory,
    /// It is a device, a FIFO or a socket.
    NotRegular,
    /// It is longer than cellc reads of such a file: `len` bytes (`None`: it grew past the
    /// cap while being read).
    TooLong {
        /// Its length, when known.
        len: Option<u64>,
        /// The most cellc reads.
        max: u64,
    },
    /// It holds `len` bytes, not the number wanted (nothing of it read).
    Length {
        /// Its length.
        len: u64,
    },
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Io(e) => write!(f, "{e}"),
            FileError::NotText => write!(f, "it is not text (UTF-8)"),
            FileError::Directory => write!(f, "it is a directory"),
            FileError::NotRegular => write!(f, "it is not a regular file (a device, FIFO or socket)"),
            FileError::TooLong { len: Some(len), max } => {
                write!(f, "it holds {len} bytes; cellc reads model files of at most {max} bytes")
            }
            FileError::TooLong { len: None, max } => {
                write!(f, "it holds more than {max} bytes, the most cellc reads of a model file")
            }
            FileError::Length { len } => write!(f, "it holds {len} bytes"),
        }
    }
}

impl std::error::Error for FileError {}

impl From<std::io::Error> for FileError {
    fn from(e: std::io::Error) -> FileError {
        FileError::Io(e)
    }
}

/// Opens `path` for reading if it is a regular file (after following symbolic links), with
/// its length.
fn open_regular(path: &Path) -> Result<(std::fs::File, u64), FileError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(if meta.is_dir() { FileError::Directory } else { FileError::NotRegular });
    }
    let file = std::fs::File::open(path)?;
    Ok((file, meta.len()))
}

/// The bytes of a model file: a regular file of at most [`MAX_MODEL_FILE_BYTES`].
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_regular(path)?;
    if len > MAX_MODEL_FILE_BYTES {
        return Err(FileError::TooLong { len: Some(len), max: MAX_MODEL_FILE_BYTES });
    }
    let mut bytes = Vec::new();
    // The file may grow after its length was read: the cap holds whatever it does.
    file.take(MAX_MODEL_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_MODEL_FILE_BYTES {
        return Err(FileError::TooLong { len: None, max: MAX_MODEL_FILE_BYTES });
    }
    Ok(bytes)
}

/// The text of a model file: a regular file of at most [`MAX_MODEL_FILE_BYTES`], in UTF-8.
pub fn read_text(path: &Path) -> Result<String, FileError> {
    String::from_utf8(read_bytes(path)?).map_err(|_| FileError::NotText)
}

/// The bytes of a regular file of exactly `want` bytes ([`FileError::Length`] when it
/// holds another number).
pub fn read_exact(path: &Path, want: u64) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_regular(path)?;
    if len != want {
        return Err(FileError::Length { len });
    }
    let mut bytes = Vec::new();
    file.take(want).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != want {
        return Err(FileError::Length { len: bytes.len() as u64 });
    }
    Ok(bytes)
}

/// Reads the byte ranges `(offset, size)` of a weights file that lie inside it and are at
/// most [`MAX_CONSTANT_BYTES`] long; the caller reports the others from the file's length.
pub fn read_ranges(path: &Path, ranges: &[(u64, u64)]) -> Result<crate::vocab::WeightData, FileError> {
    let (mut file, len) = open_regular(path)?;
    let mut data = crate::vocab::WeightData::new(len);
    for &(offset, size) in ranges {
        let inside = offset.checked_add(size).is_some_and(|end| end <= len);
        if !inside || size > MAX_CONSTANT_BYTES || data.get(offset, size).is_some() {
            continue;
        }
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(offset))?;
        (&mut file).take(size).read_to_end(&mut bytes)?;
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
        assert!(matches!(e, FileError::Directory) && e.to_string().contains("directory"), "{e}");
        #[cfg(unix)]
        {
            let e = read_text(Path::new("/dev/zero")).expect_err("a device");
            assert!(matches!(e, FileError::NotRegular) && e.to_string().contains("not a regular file"), "{e}");
            let e = read_ranges(Path::new("/dev/zero"), &[(0, 4)]).expect_err("a device");
            assert!(matches!(e, FileError::NotRegular), "{e}");
        }
        let p = dir.path().join("four.bin");
        std::fs::write(&p, [1u8, 2, 3, 4]).expect("write");
        assert!(matches!(read_exact(&p, 8), Err(FileError::Length { len: 4 })));
        assert_eq!(read_exact(&p, 4).expect("read"), vec![1, 2, 3, 4]);
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
