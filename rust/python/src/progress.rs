//! Running long core work from Python: on a worker thread with the GIL released, while the
//! calling thread wakes every 100 ms to report progress to a Python callback and to turn Ctrl-C
//! (a pending signal) or a raising callback into cooperative cancellation.

use crate::errors::NativeError;
use eagle3_inspect_core::{AtomicProgress, Result};
use pyo3::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

const POLL: Duration = Duration::from_millis(100);

/// Runs `work` (which must poll the `AtomicProgress` it is given) and returns its result, or the
/// Python exception (KeyboardInterrupt, or whatever the callback raised) that stopped it.
pub fn run_with_progress<T, F>(
    py: Python<'_>,
    total: u64,
    callback: Option<&Py<PyAny>>,
    work: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&AtomicProgress) -> Result<T> + Send,
{
    let progress = AtomicProgress::default();
    let mut stopped_by: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let progress = &progress;
            let worker = scope.spawn(move || {
                let result = work(progress);
                let _ = done_tx.send(());
                result
            });
            loop {
                let finished = !matches!(
                    done_rx.recv_timeout(POLL),
                    Err(mpsc::RecvTimeoutError::Timeout)
                );
                if stopped_by.is_none() {
                    Python::attach(|py| {
                        let polled = py.check_signals().and_then(|()| match callback {
                            Some(cb) => cb.call1(py, (progress.done(), total)).map(drop),
                            None => Ok(()),
                        });
                        if let Err(err) = polled {
                            progress.cancel();
                            stopped_by = Some(err);
                        }
                    });
                }
                if finished {
                    break;
                }
            }
            worker.join()
        })
    });
    if let Some(err) = stopped_by {
        return Err(err);
    }
    match outcome {
        Ok(result) => result.map_err(|e| NativeError(e).into()),
        Err(_) => Err(pyo3::exceptions::PyRuntimeError::new_err(
            "internal error: a worker thread panicked (please report this with the checkpoint's header)",
        )),
    }
}
