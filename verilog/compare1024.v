// TinyGarble's Compare 1024 (thesis Table 3.1): unsigned a > b on 1024-bit values.
module compare1024 (
  input  [1023:0] g_a,
  input  [1023:0] e_b,
  output          gt
);
  assign gt = g_a > e_b;
endmodule
