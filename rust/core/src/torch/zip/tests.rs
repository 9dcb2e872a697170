//! Zip reader tests.
