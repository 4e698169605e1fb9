//! One connection for the whole run: the preprocessing ([`Kos15Preprocessor`]) and the
//! garbling both talk to the peer over the same [`Channel`] (a user's one TCP or TLS
//! connection), each through a handle of a [`SharedChannel`]. The parties make their calls
//! in the same order, so the messages of the two phases never interleave differently on the
//! two ends.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use mixgc_core::Rng;
use mixgc_net::{Channel, NetError};

use crate::{Kos15Preprocessor, MaliciousError, Role};

/// A handle of one channel; clones are handles of the same channel (same buffers, same
/// byte counters). Calls never overlap: the preprocessor is called between the garbling's
/// reads and writes, never during one.
pub struct SharedChannel<C: Channel> {
    inner: Arc<Mutex<C>>,
}

impl<C: Channel> Clone for SharedChannel<C> {
    fn clone(&self) -> Self {
        SharedChannel {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<C: Channel> SharedChannel<C> {
    /// Shares `ch`.
    pub fn new(ch: C) -> Self {
        SharedChannel {
            inner: Arc::new(Mutex::new(ch)),
        }
    }

    /// The channel, for one call (a panic elsewhere does not make it unusable here: the
    /// caller's error path still needs it).
    fn lock(&self) -> MutexGuard<'_, C> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<C: Channel> Channel for SharedChannel<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.lock().send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.lock().recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.lock().flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.lock().bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.lock().bytes_received()
    }
    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.lock().channel_binding()
    }
    fn set_phase(&mut self, phase: &'static str) {
        self.lock().set_phase(phase)
    }
    fn read_timeout(&self) -> Option<Duration> {
        self.lock().read_timeout()
    }
    fn set_read_timeout(&mut self, timeout: Duration) {
        self.lock().set_read_timeout(timeout)
    }
}

/// Sets up the real preprocessing over `ch` ([`Kos15Preprocessor::setup`]: 128 base
/// OTs and 128 COTs for the other direction's) and returns a handle of the same channel for the garbling that follows.
pub fn preprocess_over<C: Channel>(
    ch: C,
    role: Role,
    session: &[u8; 32],
    rng: Rng,
) -> Result<(SharedChannel<C>, Kos15Preprocessor<SharedChannel<C>>), MaliciousError> {
    let shared = SharedChannel::new(ch);
    let prep = Kos15Preprocessor::setup(shared.clone(), role, session, rng)?;
    Ok((shared, prep))
}
