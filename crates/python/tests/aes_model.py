"""AES-128 encryption in plain Python (FIPS-197), the plaintext model of the AES tests."""

def _xtime(a: int) -> int:
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def _mul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = _xtime(a), b >> 1
    return r


def _sbox() -> list:
    inverse = [0] * 256
    for x in range(1, 256):
        for y in range(1, 256):
            if _mul(x, y) == 1:
                inverse[x] = y
                break
    box = []
    for x in range(256):
        b = inverse[x]
        s = b
        for shift in range(1, 5):
            s ^= ((b << shift) | (b >> (8 - shift))) & 0xFF
        box.append(s ^ 0x63)
    return box


SBOX = _sbox()


def _expand(key: bytes) -> list:
    words = [list(key[4 * i : 4 * i + 4]) for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = list(words[i - 1])
        if i % 4 == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rcon
            rcon = _xtime(rcon)
        words.append([a ^ b for a, b in zip(words[i - 4], t)])
    return [sum(words[4 * r : 4 * r + 4], []) for r in range(11)]


def encrypt(key: bytes, block: bytes) -> bytes:
    """AES-128 of one 16-byte block."""
    keys = _expand(key)
    s = [a ^ b for a, b in zip(block, keys[0])]
    for r in range(1, 11):
        s = [SBOX[b] for b in s]
        s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]  # ShiftRows, column-major state
        if r != 10:
            mixed = []
            for c in range(4):
                a = s[4 * c : 4 * c + 4]
                mixed += [
                    _mul(a[0], 2) ^ _mul(a[1], 3) ^ a[2] ^ a[3],
                    a[0] ^ _mul(a[1], 2) ^ _mul(a[2], 3) ^ a[3],
                    a[0] ^ a[1] ^ _mul(a[2], 2) ^ _mul(a[3], 3),
                    _mul(a[0], 3) ^ a[1] ^ a[2] ^ _mul(a[3], 2),
                ]
            s = mixed
        s = [a ^ b for a, b in zip(s, keys[r])]
    return bytes(s)


def encrypt_int(key: int, block: int) -> int:
    """AES-128 on 128-bit ints, the first byte most significant (the hex of `mixgc run`)."""
    out = encrypt(key.to_bytes(16, "big"), block.to_bytes(16, "big"))
    return int.from_bytes(out, "big")
