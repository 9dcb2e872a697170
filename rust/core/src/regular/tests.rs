//! Special files are refused without blocking; small files are read up to their cap.

use super::*;

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("model.safetensors");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `name` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let err = open_regular(&fifo).unwrap_err().to_string();
    assert!(err.contains("FIFO"), "{err}");
    let err = read_capped(&fifo, REFS_CAP).unwrap_err().to_string();
    assert!(err.contains("FIFO"), "{err}");
}

#[test]
fn devices_and_directories_are_refused() {
    let err = read_capped(Path::new("/dev/zero"), CONFIG_CAP)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a device"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let err = open_regular(dir.path()).unwrap_err().to_string();
    assert!(err.contains("directory"), "{err}");
}

#[test]
fn small_files_are_read_and_large_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main");
    std::fs::write(&path, b"abc123").unwrap();
    assert_eq!(read_capped_text(&path, 6).unwrap(), "abc123");
    let err = read_capped(&path, 5).unwrap_err().to_string();
    assert!(err.contains("5-byte limit"), "{err}");
}
