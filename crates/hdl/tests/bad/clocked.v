module clocked (input clk, input g_a, output reg y);
  always @(posedge clk) y <= g_a;
endmodule
