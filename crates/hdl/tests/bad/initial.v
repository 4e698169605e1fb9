module initial_value (input g_a, input e_b, output reg y);
  initial y = 1'b0;
  always @* y = g_a & e_b;
endmodule
