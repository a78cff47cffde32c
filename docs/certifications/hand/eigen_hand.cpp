// Hand confirmation of the Eigen finding (docs/certifications/eigen.md).
//   c++ -std=c++17 -I/usr/include/eigen3 eigen_hand.cpp -o eigen_hand && ./eigen_hand
// Built WITHOUT -DNDEBUG, so Eigen's own eigen_assert is active (it aborts).
#include <iostream>
#include <unsupported/Eigen/CXX11/Tensor>

int main()
{
    Eigen::Tensor<int, 2, Eigen::RowMajor> ok(1, 3);
    ok.setValues({{1, 2, 3}});
    Eigen::array<Eigen::Index, 2> twice{{2, 1}};
    Eigen::Tensor<int, 2, Eigen::RowMajor> b = ok.broadcast(twice);
    std::cout << "[1,3].broadcast({2,1}) has dims " << b.dimension(0) << "x" << b.dimension(1)
              << "\n";
    Eigen::Tensor<int, 2, Eigen::RowMajor> one_to_zero(1, 3);
    one_to_zero.setZero();
    Eigen::array<Eigen::Index, 2> zero_times{{0, 1}};
    Eigen::Tensor<int, 2, Eigen::RowMajor> z = one_to_zero.broadcast(zero_times);
    std::cout << "[1,3].broadcast({0,1}) has dims " << z.dimension(0) << "x" << z.dimension(1)
              << " (1 stretched to 0: fine)\n";
    Eigen::Tensor<int, 2, Eigen::RowMajor> empty(0, 1); // numpy: [0,1] with [1,3] -> [0,3]
    Eigen::array<Eigen::Index, 2> three{{1, 3}};
    std::cout << "[0,1].broadcast({1,3}) ..." << std::endl;
    Eigen::Tensor<int, 2, Eigen::RowMajor> e = empty.broadcast(three);
    std::cout << "has dims " << e.dimension(0) << "x" << e.dimension(1) << "\n";
    return 0;
}
