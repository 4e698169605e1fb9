//! Circuits shipped in the repository's `circuits/` folder, built into the library.

/// The Bristol Fashion AES-128 circuit (`circuits/aes_128.txt`): key, then plaintext, in;
/// ciphertext out.
pub const AES_128: &str = include_str!("../../../circuits/aes_128.txt");
