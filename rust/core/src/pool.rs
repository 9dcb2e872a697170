//! Running parallel work on a caller-chosen number of threads.

use crate::{Error, Result};

/// Runs `work` on a private rayon pool of `threads` workers, or on the global pool when `None`.
/// Results never depend on the choice; `Some(0)` is an [`Error::InvalidArgument`].
pub fn run_with_threads<T, F>(threads: Option<usize>, work: F) -> Result<T>
where
    T: Send,
    F: FnOnce() -> Result<T> + Send,
{
    match threads {
        None => work(),
        Some(0) => Err(Error::InvalidArgument("threads must be at least 1".into())),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error::InvalidArgument(format!("cannot start {n} threads: {e}")))?
            .install(work),
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
        assert!(matches!(
            run_with_threads(Some(0), || Ok(())),
            Err(Error::InvalidArgument(_))
        ));
    }
}
