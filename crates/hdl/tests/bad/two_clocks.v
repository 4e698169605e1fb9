module two_clocks (input clk, input g_clk2, input g_a, output reg y, output reg z);
  initial begin y = 0; z = 0; end
  always @(posedge clk) y <= g_a;
  always @(posedge g_clk2) z <= g_a;
endmodule
