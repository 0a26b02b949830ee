//! Files and directories only their owner may read: memories hold what agents learned about
//! private code, so what holds them (the store's directory, exports, watch's state) is made
//! with mode 0700 or 0600 on Unix, whatever the umask. What exists keeps its mode.

use std::fs::File;
use std::io;
use std::path::Path;

use anyhow::{Context, Result};

/// Creates `dir` and any missing parents, those it makes with mode 0700.
pub fn create_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))
}

/// Opens `path` for writing, emptied, as `File::create` does; made with mode 0600.
pub fn create_file(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}
