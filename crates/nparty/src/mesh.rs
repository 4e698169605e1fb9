//! The mesh: one channel from this party to every other, with frames from `mixgc_net`.
//!
//! Sends never wait on the peer (the channels queue them: TCP links through a writer
//! thread, in-memory links in their queue), so the protocols may send to everyone, then
//! read from everyone, without deadlock. Every read first flushes what was sent.
//!
//! Any error ends the run: before a `send`, `flush`, `recv` or `pairwise` returns one, the
//! mesh tells every other party why ([`Mesh::abort_all`]), so a party that dies or stalls is
//! named on every side, not only by the parties that read from it.

use mixgc_net::{
    last_words, memory_pair_holding, recv_frame, send_abort, send_frame, Channel, NetError, PeerMisbehaved,
    Tag, MAX_ABORT_BYTES,
};

use crate::relay::AbortWatch;
use crate::NpartyError;

/// This party's channels to every other party.
pub struct Mesh {
    me: usize,
    /// `links[j]` goes to party j; `links[me]` is `None`.
    links: Vec<Option<Box<dyn Channel>>>,
    /// `closed[j]`: a write to party j failed because it closed. Reported by [`Mesh::flush`]
    /// (and by the reads from j, after what j sent before closing), not by reads from other
    /// parties, so that what a closed party said last (its hello, why it stopped) is read
    /// in order.
    closed: Vec<bool>,
}

impl std::fmt::Debug for Mesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mesh")
            .field("me", &self.me)
            .field("parties", &self.links.len())
            .finish_non_exhaustive()
    }
}

impl Mesh {
    /// A mesh for party `me` over `links` (`links[j]` to party j, `None` exactly at `me`).
    ///
    /// # Panics
    /// If `links[me]` is a channel or another entry is missing.
    pub fn new(me: usize, links: Vec<Option<Box<dyn Channel>>>) -> Mesh {
        for (j, l) in links.iter().enumerate() {
            assert_eq!(l.is_none(), j == me, "a mesh has a link to every other party");
        }
        let closed = vec![false; links.len()];
        Mesh { me, links, closed }
    }

    pub fn me(&self) -> usize {
        self.me
    }

    /// n, the number of parties (this one included).
    pub fn parties(&self) -> usize {
        self.links.len()
    }

    /// The other parties' ids, in order.
    pub fn peers(&self) -> impl Iterator<Item = usize> + 'static {
        let me = self.me;
        (0..self.links.len()).filter(move |&j| j != me)
    }

    fn link(&mut self, party: usize) -> &mut dyn Channel {
        self.links[party]
            .as_deref_mut()
            .expect("no link from a party to itself")
    }

    /// Queues a frame to `to` (sent at the latest when this party next reads). A party that
    /// closed is not an error here: [`Mesh::flush`] or the next read from it reports it.
    pub fn send(&mut self, to: usize, tag: Tag, payload: &[u8]) -> Result<(), NpartyError> {
        match send_frame(self.link(to), tag, payload) {
            Err(NetError::Disconnected) => {
                self.closed[to] = true;
                Ok(())
            }
            r => r.map_err(|e| self.write_failed(to, e)),
        }
    }

    /// Queues the same frame to every other party.
    pub fn send_all(&mut self, tag: Tag, payload: &[u8]) -> Result<(), NpartyError> {
        for j in self.peers() {
            self.send(j, tag, payload)?;
        }
        Ok(())
    }

    /// Pushes out everything queued, to every party; an error if a party closed.
    pub fn flush(&mut self) -> Result<(), NpartyError> {
        self.flush_links()?;
        match self.closed.iter().position(|&c| c) {
            Some(j) => Err(self.write_failed(j, NetError::Disconnected)),
            None => Ok(()),
        }
    }

    /// Pushes out everything queued; a party that closed is only marked in `closed`.
    fn flush_links(&mut self) -> Result<(), NpartyError> {
        for j in self.peers() {
            match self.link(j).flush() {
                Err(NetError::Disconnected) => self.closed[j] = true,
                r => r.map_err(|e| self.write_failed(j, e))?,
            }
        }
        Ok(())
    }

    /// A frame `tag` of at most `max_len` bytes from `from` (after flushing all sends).
    ///
    /// With three or more parties, a peer silent for a whole timeout may itself be waiting
    /// on the party that stalled, and about to say so: this party tells every other that
    /// it stops at once, then reads from the silent peer for a [`grace`] longer, and reports
    /// the peer's reason if one comes (so the stalled party is named, not a party waiting
    /// on it). A frame that comes only then is too late: the others were told already.
    pub fn recv(&mut self, from: usize, tag: Tag, max_len: usize) -> Result<Vec<u8>, NpartyError> {
        self.flush_links()?;
        match recv_frame(self.link(from), tag, max_len) {
            Ok(frame) => Ok(frame),
            Err(source) if source.is_silence() && self.parties() > 2 => {
                Err(self.silent(from, NpartyError::Peer { party: from, source }))
            }
            Err(source) => Err(self.stop(NpartyError::Peer { party: from, source })),
        }
    }

    /// The error to stop with when `from` was silent for a whole timeout (`silent`), with
    /// three or more parties: every other party is told at once, then `from`'s own reason,
    /// if it comes within [`grace`], replaces `silent` (see [`Mesh::recv`]).
    fn silent(&mut self, from: usize, silent: NpartyError) -> NpartyError {
        self.abort_all(&silent.to_string());
        match self.reason_within_grace(from) {
            Some(source) => NpartyError::Peer { party: from, source },
            None => silent,
        }
    }

    /// The reason `from` gives for stopping ([`NetError::PeerStopped`]) if it comes within
    /// [`grace`] of the link's timeout; `None` if the link cannot shorten its reads or
    /// anything else comes.
    fn reason_within_grace(&mut self, from: usize) -> Option<NetError> {
        let link = self.link(from);
        let timeout = link.read_timeout()?;
        link.set_read_timeout(grace(timeout));
        let late = recv_frame(&mut *link, Tag::Abort, MAX_ABORT_BYTES);
        link.set_read_timeout(timeout);
        match late {
            Ok(reason) => Some(NetError::PeerStopped(
                String::from_utf8_lossy(&reason).into_owned(),
            )),
            Err(_) => None,
        }
    }

    /// A frame `tag` of exactly `len` bytes from `from`.
    pub fn recv_exact(&mut self, from: usize, tag: Tag, len: usize) -> Result<Vec<u8>, NpartyError> {
        let got = self.recv(from, tag, len)?;
        if got.len() != len {
            let e = NpartyError::Peer {
                party: from,
                source: PeerMisbehaved::WrongLength {
                    tag,
                    len: got.len(),
                    expected: len,
                }
                .into(),
            };
            return Err(self.stop(e));
        }
        Ok(got)
    }

    /// Runs `f(j, channel to j)` for every other party j at once, one thread per peer (for
    /// two-party subprotocols such as OT, which read and write in turns). Returns the
    /// results indexed by party (`None` at this party's own index), or the error of the
    /// first peer in party order whose error is its own (not a reason it relayed, not its
    /// silence; see [`Mesh::pairwise_failed`]).
    ///
    /// A peer's reason for stopping, sent while `f` reads its raw bytes, is the error `f`
    /// fails with on that peer ([`AbortWatch`]), not its close or garbage.
    pub fn pairwise<T, F>(&mut self, f: F) -> Result<Vec<Option<T>>, NpartyError>
    where
        T: Send,
        F: Fn(usize, &mut dyn Channel) -> Result<T, NpartyError> + Sync,
    {
        let me = self.me;
        let mut no_state: Vec<Option<()>> = self
            .links
            .iter()
            .enumerate()
            .map(|(j, _)| (j != me).then_some(()))
            .collect();
        self.pairwise_with(&mut no_state, |j, ch, ()| f(j, ch))
    }

    /// [`Mesh::pairwise`] with per-peer state: `f(j, channel to j, &mut state[j])`.
    ///
    /// # Panics
    /// If `state` does not have exactly one `Some` entry per other party.
    pub fn pairwise_with<S, T, F>(
        &mut self,
        state: &mut [Option<S>],
        f: F,
    ) -> Result<Vec<Option<T>>, NpartyError>
    where
        S: Send,
        T: Send,
        F: Fn(usize, &mut dyn Channel, &mut S) -> Result<T, NpartyError> + Sync,
    {
        assert_eq!(state.len(), self.links.len(), "one state per party");
        self.flush()?;
        let f = &f;
        let results: Vec<Option<Result<T, NpartyError>>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .links
                .iter_mut()
                .zip(state.iter_mut())
                .enumerate()
                .map(|(j, (l, st))| match (l.as_deref_mut(), st.as_mut()) {
                    (Some(ch), Some(st)) => Some(s.spawn(move || watched(j, ch, |ch| f(j, ch, st)))),
                    (None, None) => None,
                    _ => panic!("per-peer state must match the mesh's links"),
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))))
                .collect()
        });
        let mut out = Vec::with_capacity(results.len());
        let mut errors = Vec::new();
        for (j, r) in results.into_iter().enumerate() {
            match r {
                None => out.push(None),
                Some(Ok(t)) => out.push(Some(t)),
                Some(Err(e)) => errors.push((j, e)),
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(self.pairwise_failed(errors))
        }
    }

    /// The error a pairwise step stops with, of its peers' `errors` (in party order): one
    /// a peer caused before one it relayed from another party (whose own error, if this
    /// party saw it, is more direct), either before a peer's silence, which may be its own
    /// wait on another party: then, as in [`Mesh::recv`], its reason is awaited a
    /// [`grace`] longer.
    fn pairwise_failed(&mut self, errors: Vec<(usize, NpartyError)>) -> NpartyError {
        let rank = |e: &NpartyError| match e.link_failure() {
            Some(NetError::PeerStopped(_)) => 1,
            Some(silence) if silence.is_silence() => 2,
            _ => 0,
        };
        let (party, e) = errors
            .into_iter()
            .min_by_key(|(j, e)| (rank(e), *j))
            .expect("a failed step has an error");
        if rank(&e) == 2 && self.parties() > 2 {
            self.silent(party, e)
        } else {
            self.stop(e)
        }
    }

    /// Bytes sent to and received from each party (`(0, 0)` at this party's own index).
    pub fn bytes(&self) -> Vec<(u64, u64)> {
        self.links
            .iter()
            .map(|l| {
                l.as_ref()
                    .map_or((0, 0), |c| (c.bytes_sent(), c.bytes_received()))
            })
            .collect()
    }

    /// Names the protocol phase on every link (for the message when a peer stalls).
    pub fn set_phase(&mut self, phase: &'static str) {
        for l in self.links.iter_mut().flatten() {
            l.set_phase(phase);
        }
    }

    /// A failed write to `party`, as the error to stop with: if `party` closed, the reason
    /// it sent before closing, when it sent one ([`last_words`]).
    fn write_failed(&mut self, party: usize, source: NetError) -> NpartyError {
        let source = match source {
            NetError::Disconnected => last_words(self.link(party)).unwrap_or(NetError::Disconnected),
            e => e,
        };
        self.stop(NpartyError::Peer { party, source })
    }

    /// Tells every other party why this one stops (`e`), and returns `e`.
    fn stop(&mut self, e: NpartyError) -> NpartyError {
        self.abort_all(&e.to_string());
        e
    }

    /// Tells every other party why this one stops (best effort: a link that fails is
    /// skipped).
    pub fn abort_all(&mut self, reason: &str) {
        for l in self.links.iter_mut().flatten() {
            let _ = send_abort(l.as_mut(), reason);
        }
    }
}

/// `step` on the link to `party`, watched for the abort frame `party` sends when it stops:
/// if `step` fails on `party` after one came, the reason it carries is the error.
fn watched<T>(
    party: usize,
    link: &mut dyn Channel,
    step: impl FnOnce(&mut dyn Channel) -> Result<T, NpartyError>,
) -> Result<T, NpartyError> {
    let mut watch = AbortWatch::new(link);
    step(&mut watch).map_err(|e| match watch.reason() {
        Some(source) if e.party() == Some(party) => NpartyError::Peer { party, source },
        _ => e,
    })
}

/// How much longer than its timeout a party waits on a silent peer, with three or more
/// parties, for the peer's own report of whom it waited on (see [`Mesh::recv`]): a quarter
/// of the timeout, at most 500 ms, so a stalled party is still named within the timeout
/// plus one second.
pub fn grace(timeout: std::time::Duration) -> std::time::Duration {
    (timeout / 4).min(std::time::Duration::from_millis(500))
}

/// Queued chunks each in-memory link holds before a sender blocks (64 KiB each): enough
/// that tests and demos never wait on a peer's reads.
const MEMORY_QUEUE: usize = 1 << 14;

/// n meshes joined by in-memory channels, for tests and single-process demos (each mesh
/// goes to its own thread).
pub fn memory_mesh(n: usize) -> Vec<Mesh> {
    #[allow(clippy::type_complexity)]
    let mut links: Vec<Vec<Option<Box<dyn Channel>>>> =
        (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
    for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
        let (a, b) = memory_pair_holding(MEMORY_QUEUE);
        links[i][j] = Some(Box::new(a));
        links[j][i] = Some(Box::new(b));
    }
    links
        .into_iter()
        .enumerate()
        .map(|(me, l)| Mesh::new(me, l))
        .collect()
}

/// A [`NetError`] from `party` as this crate's error.
pub fn peer(party: usize) -> impl Fn(NetError) -> NpartyError {
    move |source| NpartyError::Peer { party, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_party_hears_every_other() {
        let meshes = memory_mesh(4);
        let got: Vec<Vec<u8>> = std::thread::scope(|s| {
            let hs: Vec<_> = meshes
                .into_iter()
                .map(|mut m| {
                    s.spawn(move || {
                        m.send_all(Tag::Openings, &[m.me() as u8]).unwrap();
                        let peers: Vec<usize> = m.peers().collect();
                        peers
                            .into_iter()
                            .map(|j| m.recv_exact(j, Tag::Openings, 1).unwrap()[0])
                            .collect()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(got, [vec![1, 2, 3], vec![0, 2, 3], vec![0, 1, 3], vec![0, 1, 2]]);
    }

    #[test]
    fn pairwise_runs_every_pair_at_once() {
        let meshes = memory_mesh(3);
        let sums: Vec<Vec<Option<u8>>> = std::thread::scope(|s| {
            let hs: Vec<_> = meshes
                .into_iter()
                .map(|mut m| {
                    s.spawn(move || {
                        let me = m.me() as u8;
                        m.pairwise(|j, ch| {
                            // A two-party step in turns: the lower id speaks first.
                            let mut b = [0u8];
                            if (me as usize) < j {
                                ch.send(&[me]).map_err(peer(j))?;
                                ch.flush().map_err(peer(j))?;
                                ch.recv(&mut b).map_err(peer(j))?;
                            } else {
                                ch.recv(&mut b).map_err(peer(j))?;
                                ch.send(&[me]).map_err(peer(j))?;
                                ch.flush().map_err(peer(j))?;
                            }
                            Ok(me + b[0])
                        })
                        .unwrap()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(sums[0], [None, Some(1), Some(2)]);
        assert_eq!(sums[2], [Some(2), Some(3), None]);
    }

    #[test]
    fn a_dead_party_is_named() {
        let mut meshes = memory_mesh(3);
        drop(meshes.pop());
        let mut m0 = meshes.remove(0);
        let e = m0.recv(2, Tag::Openings, 8).unwrap_err();
        assert_eq!(e.party(), Some(2));
        assert!(e.to_string().starts_with("party 2: "), "{e}");
    }

    #[test]
    fn a_party_waiting_on_the_stalled_one_is_not_blamed_for_it() {
        let mut meshes = memory_mesh(3);
        for m in &mut meshes {
            for l in m.links.iter_mut().flatten() {
                l.set_read_timeout(std::time::Duration::from_secs(1));
            }
        }
        let mut m2 = meshes.pop().unwrap();
        let mut m1 = meshes.pop().unwrap();
        let mut m0 = meshes.pop().unwrap();
        let (e0, e1) = std::thread::scope(|s| {
            // Party 2 stays silent (alive, sending nothing) until both others gave up.
            s.spawn(move || {
                std::thread::sleep(std::time::Duration::from_secs(3));
                m2.abort_all("done");
            });
            // Party 1 starts waiting on party 2 a little after party 0 waits on party 1,
            // so party 0's timeout fires first.
            let p1 = s.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                m1.recv(2, Tag::Openings, 8).unwrap_err()
            });
            let e0 = m0.recv(1, Tag::Openings, 8).unwrap_err();
            (e0, p1.join().unwrap())
        });
        assert_eq!(e1.party(), Some(2), "{e1}");
        assert!(e0.to_string().contains("party 2: the peer sent nothing"), "{e0}");
    }
}
