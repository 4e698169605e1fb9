//! `mixgc mixed --example kmeans`: its input files, their generator and its output
//! (`mixgc_program::mixed::kmeans`, one k-means iteration at [`KmeansSize::DEFAULT`]).

use std::path::Path;

use mixgc_program::mixed::kmeans::{
    check_input, plaintext, KmeansInput, KmeansInputs, KmeansOutput, KmeansSize, VALUE_LIMIT,
};
use serde::{Deserialize, Serialize};

use crate::mixed::{generator_rng, read_json, write_party_files};
use crate::CliError;

/// One party's Kmeans input file: `{"centroids": [[…], …]}` at party 0,
/// `{"points": [[…], …]}` elsewhere.
#[derive(Serialize, Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct KmeansFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    centroids: Option<Vec<Vec<u64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    points: Option<Vec<Vec<u64>>>,
}

/// Reads and checks party `id`'s Kmeans input file; every problem names the file.
pub fn read_input(path: &Path, id: usize, n: usize) -> Result<KmeansInput, CliError> {
    let size = KmeansSize::DEFAULT;
    let bad = |why: String| -> CliError { format!("--input-file {}: {why}", path.display()).into() };
    let file: KmeansFile = read_json(path, "Kmeans")?;
    let input = match (id, file.centroids, file.points) {
        (0, Some(c), None) => KmeansInput::Centroids(c),
        (0, _, _) => {
            return Err(bad(format!(
                "party 0's file holds exactly {{\"centroids\": [{} centroids of {} values]}}",
                size.clusters, size.dimension
            )))
        }
        (_, None, Some(p)) => KmeansInput::Points(p),
        (_, _, _) => {
            return Err(bad(format!(
                "party {id}'s file holds exactly {{\"points\": [[{} values], ...]}}",
                size.dimension
            )))
        }
    };
    check_input(&input, id, n, &size).map_err(|e| bad(e.to_string()))?;
    Ok(input)
}

/// Party 0's output line: `{"centroids": [[…], …], "sizes": […]}`.
pub fn output_json(output: &KmeansOutput) -> serde_json::Value {
    serde_json::json!({"centroids": output.centroids, "sizes": output.sizes})
}

/// The generator's random centroids and points of the default size (from `--seed`, else
/// fresh).
fn random_inputs(seed: Option<u64>) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    use rand::Rng;
    let size = KmeansSize::DEFAULT;
    let mut rng = generator_rng(seed);
    let mut draw = |count: usize| -> Vec<Vec<u64>> {
        (0..count)
            .map(|_| {
                (0..size.dimension)
                    .map(|_| rng.gen_range(0..VALUE_LIMIT))
                    .collect()
            })
            .collect()
    };
    let centroids = draw(size.clusters);
    (centroids, draw(size.points))
}

/// Every party's inputs among `n` from the generator (`--generate N [--seed S]`).
pub fn generated_inputs(n: usize, seed: Option<u64>) -> Result<KmeansInputs, CliError> {
    let (centroids, points) = random_inputs(seed);
    Ok(KmeansInputs::clear(n, KmeansSize::DEFAULT, &centroids, &points)?)
}

/// Every party's inputs from their files, in id order.
pub fn file_inputs(files: &[std::path::PathBuf]) -> Result<KmeansInputs, CliError> {
    let n = files.len();
    let mut inputs = KmeansInputs::none(n, KmeansSize::DEFAULT)?;
    for (id, path) in files.iter().enumerate() {
        inputs.set(id, read_input(path, id, n)?)?;
    }
    Ok(inputs)
}

/// `--example kmeans --generate N --out DIR`: random centroids and points of the default
/// size in N parties' files, and the plaintext output on stdout.
pub fn generate(n: usize, dir: &Path, seed: Option<u64>) -> Result<(), CliError> {
    let size = KmeansSize::DEFAULT;
    let (centroids, points) = random_inputs(seed);
    write_party_files(n, dir, |i| match i {
        0 => KmeansFile {
            centroids: Some(centroids.clone()),
            points: None,
        },
        _ => KmeansFile {
            centroids: None,
            points: Some(size.points_of(i, n).iter().map(|&j| points[j].clone()).collect()),
        },
    })?;
    let expected = plaintext(&centroids, &points);
    crate::write_stdout(&format!("{}\n", output_json(&expected)))
}
