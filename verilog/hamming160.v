// TinyGarble's Hamming 160 (thesis Table 3.1): the number of positions where two 160-bit
// strings differ.
module hamming160 (
  input      [159:0] g_a,
  input      [159:0] e_b,
  output reg [7:0]   distance
);
  integer i;
  always @* begin
    distance = 8'd0;
    for (i = 0; i < 160; i = i + 1)
      distance = distance + (g_a[i] ^ e_b[i]);
  end
endmodule
