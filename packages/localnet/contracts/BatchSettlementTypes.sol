// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The immutable parameters a channel is identified by (its id is their EIP-712 hash).
/// Field order and widths are the x402 `batch-settlement` wire layout: calldata the x402 EVM SDK
/// (npm package x402/evm) builds decodes into this struct, so it must not be reordered.
struct ChannelConfig {
    address payer;
    address payerAuthorizer;
    address receiver;
    address receiverAuthorizer;
    address token;
    uint40 withdrawDelay;
    bytes32 salt;
}

/// @notice A payer's cumulative promise: the receiver may claim up to `maxClaimableAmount` in total.
struct Voucher {
    ChannelConfig channel;
    uint128 maxClaimableAmount;
}

/// @notice One row of a claim: the voucher, the payer's signature over it, and the new cumulative
/// total the receiver claims (at most the voucher's ceiling and the channel's balance).
struct VoucherClaim {
    Voucher voucher;
    bytes signature;
    uint128 totalClaimed;
}

/// @notice Per-channel accounting. `balance` counts deposits minus refunds and withdrawals; claimed
/// funds stay inside it (a claim only raises `totalClaimed`), so unclaimed escrow is the difference.
struct ChannelState {
    uint128 balance;
    uint128 totalClaimed;
}

/// @notice A timed withdrawal the payer started; `initiatedAt` is 0 when none is pending.
struct PendingWithdrawal {
    uint128 amount;
    uint40 initiatedAt;
}

/// @notice What a receiver has earned in one token: claimed across all its channels, and swept out.
struct ReceiverTotals {
    uint128 totalClaimed;
    uint128 totalSettled;
}

/// @notice The ERC-20 calls the contracts make.
interface IERC20Minimal {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
}

/// @notice EIP-1271: how a contract wallet says a signature is its own.
interface IERC1271 {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// @notice What the settlement contract asks of a deposit collector: move `amount` of `token` from
/// `payer` into the settlement contract for `channelId`, using the payer's authorization in `data`.
/// The settlement contract checks its own token balance grew by exactly `amount`.
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external;
}

/// @notice Low-level ERC-20 calls that accept tokens returning nothing as well as `true`.
library TokenCalls {
    error TokenTransferFailed(address token, address to, uint256 amount);

    function safeTransfer(address token, address to, uint256 amount) internal {
        (bool ok, bytes memory ret) = token.call(abi.encodeCall(IERC20Minimal.transfer, (to, amount)));
        if (!ok || (ret.length != 0 && (ret.length < 32 || !abi.decode(ret, (bool))))) {
            revert TokenTransferFailed(token, to, amount);
        }
    }

    function balanceOfThis(address token) internal view returns (uint256) {
        return IERC20Minimal(token).balanceOf(address(this));
    }
}

/// @notice Signature checks with the semantics the x402 SDK verifies off chain: plain ECDSA
/// (65 bytes, low s, v 27/28) for an account without code, EIP-1271 for a contract.
library SignatureCheck {
    /// @dev secp256k1 n/2: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// @notice The ECDSA signer of `digest`, or address(0) for a malformed or non-canonical signature.
    function recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_CURVE_ORDER || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// @notice Whether `signer` signed `digest`: EIP-1271 when it has code, ECDSA otherwise.
    function isValidNow(address signer, bytes32 digest, bytes calldata signature) internal view returns (bool) {
        if (signer == address(0)) return false;
        if (signer.code.length == 0) return recover(digest, signature) == signer;
        (bool ok, bytes memory ret) = signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
        return ok && ret.length >= 32 && abi.decode(ret, (bytes32)) == bytes32(IERC1271.isValidSignature.selector);
    }
}
