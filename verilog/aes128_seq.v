// AES-128 encryption (FIPS-197), one round a clock cycle (TinyGarble's sequential AES):
// 10 cycles encrypt. The datapath holds one round, 16 + 4 S-boxes (aes_sbox.v, 32 ANDs
// each), so a cycle costs 640 ANDs and 10 cycles 6,400; the round counter is public (it
// starts from its initial value and counts), so the first round's load of plaintext ⊕ key
// and the round constant cost nothing when garbled. The output is the round's result
// without MixColumns, the ciphertext in cycle 9. Synthesize with
//   mixgc synth verilog/aes128_seq.v verilog/aes_sbox.v --top aes128_seq --once-ports g_key,e_plaintext
// and run with --cycles 10. Byte i of the FIPS-197 byte string is bits [127 - 8i -: 8].
module aes128_seq (
  input          clk,
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

  function [7:0] rcon(input [3:0] round);
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

  reg [3:0]   round = 4'd0;
  reg [127:0] state = 128'd0;
  reg [127:0] round_key = 128'd0;

  // Round 0 starts from the inputs (the registers are still zero), the others from the
  // registers.
  wire         first = round == 4'd0;
  wire [127:0] key = round_key ^ (g_key & {128{first}});
  wire [127:0] in = state ^ ((e_plaintext ^ g_key) & {128{first}});

  wire [127:0] sub;
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : sub_bytes
      aes_sbox s (.in(in[8 * i +: 8]), .out(sub[8 * i +: 8]));
    end
  endgenerate
  wire [127:0] shifted = shift_rows(sub);
  wire [127:0] mixed = mix_columns(shifted);

  // Key expansion: temp = SubWord(RotWord(w3)) ^ Rcon.
  wire [31:0] w3 = key[31:0];
  wire [31:0] sub_word;
  aes_sbox k0 (.in(w3[23:16]), .out(sub_word[31:24]));
  aes_sbox k1 (.in(w3[15:8]), .out(sub_word[23:16]));
  aes_sbox k2 (.in(w3[7:0]), .out(sub_word[15:8]));
  aes_sbox k3 (.in(w3[31:24]), .out(sub_word[7:0]));
  wire [31:0] temp = sub_word ^ {rcon(round), 24'h000000};
  wire [31:0] n0 = key[127:96] ^ temp;
  wire [31:0] n1 = key[95:64] ^ n0;
  wire [31:0] n2 = key[63:32] ^ n1;
  wire [31:0] n3 = key[31:0] ^ n2;
  wire [127:0] next_key = {n0, n1, n2, n3};

  // The last round has no MixColumns: the output is the round without it, the ciphertext
  // in cycle 9 (valid only then, as a hardware core's output with a done flag).
  assign ciphertext = shifted ^ next_key;

  always @(posedge clk) begin
    state <= mixed ^ next_key;
    round_key <= next_key;
    round <= round + 4'd1;
  end
endmodule
