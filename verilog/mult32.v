// TinyGarble's Mult 32 (thesis Table 3.1): 32-bit product modulo 2^32.
module mult32 (
  input  [31:0] g_a,
  input  [31:0] e_b,
  output [31:0] product
);
  assign product = g_a * e_b;
endmodule
