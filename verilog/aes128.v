// AES-128 encryption (FIPS-197), combinational, with the key expansion inside: 10 rounds
// of SubBytes (aes_sbox.v, 32 ANDs each), ShiftRows, MixColumns (all but the last round)
// and AddRoundKey. 200 S-boxes, 6,400 ANDs (TinyGarble thesis Table 3.1). Synthesize with
// aes_sbox.v:  mixgc synth verilog/aes128.v verilog/aes_sbox.v --top aes128
//
// Byte i of the FIPS-197 byte string is bits [127 - 8i -: 8]: the hex string FIPS-197
// writes is the port's value.
module aes128 (
  input  [127:0] g_key,
  input  [127:0] e_plaintext,
  output [127:0] ciphertext
);
  // Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
  function [7:0] xtime(input [7:0] b);
    xtime = {b[6:0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
  endfunction

  // MixColumns on one column {a0, a1, a2, a3}, a0 the top byte.
  function [31:0] mix_column(input [31:0] col);
    reg [7:0] a0, a1, a2, a3;
    begin
      {a0, a1, a2, a3} = col;
      mix_column = {xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3,
                    a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3,
                    a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3,
                    xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3)};
    end
  endfunction

  function [127:0] mix_columns(input [127:0] s);
    integer c;
    for (c = 0; c < 4; c = c + 1)
      mix_columns[127 - 32 * c -: 32] = mix_column(s[127 - 32 * c -: 32]);
  endfunction

  // ShiftRows: row r (bytes r, r + 4, r + 8, r + 12) rotates left by r columns.
  function [127:0] shift_rows(input [127:0] s);
    integer r, c;
    for (c = 0; c < 4; c = c + 1)
      for (r = 0; r < 4; r = r + 1)
        shift_rows[127 - 8 * (r + 4 * c) -: 8] = s[127 - 8 * (r + 4 * ((c + r) % 4)) -: 8];
  endfunction

  function [7:0] rcon(input integer round);
    case (round)
      0: rcon = 8'h01;
      1: rcon = 8'h02;
      2: rcon = 8'h04;
      3: rcon = 8'h08;
      4: rcon = 8'h10;
      5: rcon = 8'h20;
      6: rcon = 8'h40;
      7: rcon = 8'h80;
      8: rcon = 8'h1b;
      default: rcon = 8'h36;
    endcase
  endfunction

  // Round keys and states before each round, 128 bits each.
  wire [128 * 11 - 1:0] round_key;
  wire [128 * 11 - 1:0] state;
  assign round_key[127:0] = g_key;
  assign state[127:0] = e_plaintext ^ g_key;

  genvar r, i;
  generate
    for (r = 0; r < 10; r = r + 1) begin : round
      wire [127:0] key = round_key[128 * r +: 128];
      wire [127:0] sub;
      for (i = 0; i < 16; i = i + 1) begin : sub_bytes
        aes_sbox s (.in(state[128 * r + 8 * i +: 8]), .out(sub[8 * i +: 8]));
      end
      wire [127:0] shifted = shift_rows(sub);
      wire [127:0] mixed = r < 9 ? mix_columns(shifted) : shifted;

      // Key expansion: temp = SubWord(RotWord(w3)) ^ Rcon.
      wire [31:0] w3 = key[31:0];
      wire [31:0] sub_word;
      aes_sbox k0 (.in(w3[23:16]), .out(sub_word[31:24]));
      aes_sbox k1 (.in(w3[15:8]), .out(sub_word[23:16]));
      aes_sbox k2 (.in(w3[7:0]), .out(sub_word[15:8]));
      aes_sbox k3 (.in(w3[31:24]), .out(sub_word[7:0]));
      wire [31:0] temp = sub_word ^ {rcon(r), 24'h000000};
      wire [31:0] n0 = key[127:96] ^ temp;
      wire [31:0] n1 = key[95:64] ^ n0;
      wire [31:0] n2 = key[63:32] ^ n1;
      wire [31:0] n3 = key[31:0] ^ n2;
      assign round_key[128 * (r + 1) +: 128] = {n0, n1, n2, n3};
      assign state[128 * (r + 1) +: 128] = mixed ^ {n0, n1, n2, n3};
    end
  endgenerate

  assign ciphertext = state[128 * 10 +: 128];
endmodule
