module undriven (input g_a, input e_b, output y, output z);
  assign y = g_a & e_b;
endmodule
