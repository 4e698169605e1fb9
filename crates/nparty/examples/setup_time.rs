use mixgc_core::{new_rng, Block};
use mixgc_nparty::{memory_mesh, Correlations};
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let t = Instant::now();
    std::thread::scope(|s| {
        for mut m in memory_mesh(n) {
            s.spawn(move || {
                let mut rng = new_rng(None, 0);
                let d = Block::random(&mut rng);
                Correlations::setup(&mut m, &[0; 32], d, &mut rng).unwrap();
            });
        }
    });
    println!("n = {n}: setup {:?}", t.elapsed());
}
