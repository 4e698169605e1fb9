//! Chain (not star) aggregation, so that each party's traffic does not grow with n (the
//! issue's "linear in total, constant per party"; the seed's §7 pipelines the same way).
//!
//! The parties stand on a line ending at a `root`: position k = (id − root) mod n. In
//! [`sum_to_root`] position k receives the running sum from position k + 1, adds its own
//! term and passes it to position k − 1, so the root receives one message, not n − 1. In
//! [`pass_from_root`] the root's message travels the other way, each party forwarding it.
//!
//! Leakage: a party on the chain sees a sum of the terms of the parties behind it, which is
//! a function of what the root would see term by term under star aggregation; so the chain
//! reveals no more than the star to any coalition that includes the root, and the terms
//! themselves are the protocols' own messages (flooded where the protocol needs it).

use mixgc_net::Tag;
use mixgc_nparty::Mesh;

use crate::MixedError;

/// This party's position on the line ending at `root`, and its neighbours' ids: the one it
/// receives a sum from (further from the root) and the one it sends to (closer).
fn neighbours(mesh: &Mesh, root: usize) -> (Option<usize>, Option<usize>) {
    let n = mesh.parties();
    let pos = (mesh.me() + n - root) % n;
    let further = (pos + 1 < n).then(|| (mesh.me() + 1) % n);
    let closer = (pos > 0).then(|| (mesh.me() + n - 1) % n);
    (further, closer)
}

/// Sums every party's `mine` along the chain into `root`: the root gets `Some(total)`, the
/// others `None`. `recv` reads and checks a term from a party; `add` adds two terms;
/// `encode` serializes one.
pub(crate) fn sum_to_root<T>(
    mesh: &mut Mesh,
    root: usize,
    mine: T,
    recv: impl Fn(&mut Mesh, usize) -> Result<T, MixedError>,
    add: impl Fn(T, &T) -> T,
    encode: impl Fn(&T) -> Result<Vec<u8>, MixedError>,
) -> Result<Option<T>, MixedError> {
    let (further, closer) = neighbours(mesh, root);
    let mut sum = mine;
    if let Some(j) = further {
        let theirs = recv(mesh, j)?;
        sum = add(sum, &theirs);
    }
    match closer {
        Some(j) => {
            mesh.send(j, Tag::Openings, &encode(&sum)?)?;
            mesh.flush()?;
            Ok(None)
        }
        None => Ok(Some(sum)),
    }
}

/// Passes the root's `value` (its `Some`) down the chain: every party returns it. `recv`
/// reads and checks it from a party; `encode` serializes it.
pub(crate) fn pass_from_root<T>(
    mesh: &mut Mesh,
    root: usize,
    value: Option<T>,
    recv: impl Fn(&mut Mesh, usize) -> Result<T, MixedError>,
    encode: impl Fn(&T) -> Result<Vec<u8>, MixedError>,
) -> Result<T, MixedError> {
    let (further, closer) = neighbours(mesh, root);
    let value = match (closer, value) {
        (None, Some(v)) => v,
        (Some(j), None) => recv(mesh, j)?,
        _ => {
            return Err(MixedError::Usage(format!(
                "only party {root}, the root of the chain, passes the value"
            )))
        }
    };
    if let Some(j) = further {
        mesh.send(j, Tag::Openings, &encode(&value)?)?;
        mesh.flush()?;
    }
    Ok(value)
}

/// Every party's `mine` summed, returned to every party: along the chain into party 0 and
/// back ([`sum_to_root`], [`pass_from_root`]: 2(n − 1) hops one after the other). At n = 2
/// the two parties swap their terms instead, both at once: the same bytes per party (one
/// term each way), one hop of latency instead of two, and no more seen (a party that holds
/// its own term and the sum knows the other's term, and conversely). Both add in party
/// order, so they hold the same sum even if `add` is not commutative.
pub(crate) fn sum_to_all<T>(
    mesh: &mut Mesh,
    mine: T,
    recv: impl Fn(&mut Mesh, usize) -> Result<T, MixedError>,
    add: impl Fn(T, &T) -> T,
    encode: impl Fn(&T) -> Result<Vec<u8>, MixedError>,
) -> Result<T, MixedError> {
    if mesh.parties() == 2 {
        let other = 1 - mesh.me();
        mesh.send(other, Tag::Openings, &encode(&mine)?)?;
        let theirs = recv(mesh, other)?;
        return Ok(if mesh.me() == 0 {
            add(mine, &theirs)
        } else {
            add(theirs, &mine)
        });
    }
    let total = sum_to_root(mesh, 0, mine, &recv, add, &encode)?;
    pass_from_root(mesh, 0, total, recv, encode)
}
