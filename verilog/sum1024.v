// TinyGarble's Sum 1024 (thesis Table 3.1): a 1024-bit addition, 1,023 ANDs.
module sum1024 (
  input  [1023:0] g_a,
  input  [1023:0] e_b,
  output [1023:0] sum
);
  assign sum = g_a + e_b;
endmodule
