module negedge_ff (input clk, input g_a, output reg y = 0);
  always @(negedge clk) y <= g_a;
endmodule
