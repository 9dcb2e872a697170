//! Running parallel work on a caller-chosen number of threads.

use crate::{Error, Result};

/// The most worker threads a caller may ask for. Far above any useful count for this memory-bound
/// work, low enough that a typo (`--threads 100000`) is refused at once instead of spawning.
pub const MAX_THREADS: usize = 1024;

/// Checks a requested thread count: `None` (all cores) or 1..=[`MAX_THREADS`].
pub fn check_threads(threads: Option<usize>) -> Result<()> {
    match threads {
        Some(0) => Err(Error::InvalidArgument("threads must be at least 1".into())),
        Some(n) if n > MAX_THREADS => Err(Error::InvalidArgument(format!(
            "threads must be at most {MAX_THREADS}, got {n}"
        ))),
        _ => Ok(()),
    }
}

/// A private rayon pool of `threads` workers (checked as [`check_threads`] does).
pub fn build_pool(threads: usize) -> Result<rayon::ThreadPool> {
    check_threads(Some(threads))?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("cannot start {threads} threads: {e}")))
}

/// Runs `work` on a private rayon pool of `threads` workers, or on the global pool when `None`.
/// Results never depend on the choice; `Some(0)` is an [`Error::InvalidArgument`].
pub fn run_with_threads<T, F>(threads: Option<usize>, work: F) -> Result<T>
where
    T: Send,
    F: FnOnce() -> Result<T> + Send,
{
    check_threads(threads)?;
    match threads {
        None => work(),
        Some(n) => build_pool(n)?.install(work),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_the_requested_pool() {
        assert_eq!(
            run_with_threads(Some(3), || Ok(rayon::current_num_threads())).unwrap(),
            3
        );
        assert!(run_with_threads(None, || Ok(())).is_ok());
        for bad in [0, MAX_THREADS + 1, 100_000] {
            assert!(matches!(
                run_with_threads(Some(bad), || Ok(())),
                Err(Error::InvalidArgument(_))
            ));
        }
        assert!(check_threads(Some(MAX_THREADS)).is_ok());
    }
}
