//! The files a run writes (`--csv`, `--plot`, `--screenshot`): checked before any work without
//! touching them, and written at the end to a temporary file beside them that is then renamed
//! over them, so that a refused or failed run leaves what the user had as it was.

use std::path::{Path, PathBuf};

/// The temporary file `path` is written through: in the same folder (a rename does not cross
/// file systems), hidden, this process's own, and with `path`'s extension (the PNG and SVG
/// writers choose their format by it).
pub fn temporary_of(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    path.with_file_name(format!(".{name}.{}.part{ext}", std::process::id()))
}

/// Checks that `path` can be written, without changing it: a temporary file is made beside
/// it and removed again; a folder in `path`'s place is refused too.
///
/// # Errors
/// `cannot write {path}: {why}`.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let refused = |why: &dyn std::fmt::Display| format!("cannot write {}: {why}", path.display());
    if path.is_dir() {
        return Err(refused(&"it is a folder"));
    }
    let probe = temporary_of(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| refused(&e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `path` through its temporary file: `write` fills the temporary file, which then
/// replaces `path` at once. On any error the temporary file is removed and `path` is as it
/// was.
///
/// # Errors
/// `write`'s message, or `cannot write {path}: {why}` for the rename.
pub fn write_via_temporary(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let temporary = temporary_of(path);
    let written = write(&temporary).and_then(|()| {
        std::fs::rename(&temporary, path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("quadstress-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_check_leaves_the_file_and_the_folder_as_they_were() {
        let dir = scratch("check");
        let file = dir.join("curve.csv");
        std::fs::write(&file, "kept\n").unwrap();
        check_writable(&file).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept\n");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no file left behind"
        );
        check_writable(&dir.join("new.png")).unwrap();
        assert!(!dir.join("new.png").exists());
        let e = check_writable(&dir).unwrap_err();
        assert!(e.contains("folder"), "{e}");
        let e = check_writable(&dir.join("no/such/dir/a.csv")).unwrap_err();
        assert!(e.starts_with("cannot write"), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_a_good_one_replaces_it() {
        let dir = scratch("write");
        let file = dir.join("shot.png");
        std::fs::write(&file, "old").unwrap();
        let e = write_via_temporary(&file, |tmp| {
            assert_eq!(tmp.extension().unwrap(), "png", "{}", tmp.display());
            std::fs::write(tmp, "half").unwrap();
            Err("drawing failed".to_owned())
        })
        .unwrap_err();
        assert_eq!(e, "drawing failed");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "the part is gone"
        );
        write_via_temporary(&file, |tmp| {
            std::fs::write(tmp, "new").map_err(|e| e.to_string())
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }
}
