//! What the tests of this crate share: running every party of a mesh in its own thread.

use fhe_rand::SeedableRng;
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_nparty::{memory_mesh, Mesh};

/// Runs `f(mesh, rng)` at every party of `meshes`, each in its own thread, party i with
/// the RNG seeded from `seed` and i; the results in party order.
pub fn run_on<T: Send>(
    meshes: Vec<Mesh>,
    seed: u64,
    f: impl Fn(&mut Mesh, &mut ChaCha20Rng) -> T + Sync,
) -> Vec<T> {
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = meshes
            .into_iter()
            .map(|mut mesh| {
                s.spawn(move || {
                    let mut rng = ChaCha20Rng::seed_from_u64(seed * 1000 + mesh.me() as u64);
                    f(&mut mesh, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// [`run_on`] an n-party in-memory mesh.
pub fn run_parties<T: Send>(
    n: usize,
    seed: u64,
    f: impl Fn(&mut Mesh, &mut ChaCha20Rng) -> T + Sync,
) -> Vec<T> {
    run_on(memory_mesh(n), seed, f)
}
