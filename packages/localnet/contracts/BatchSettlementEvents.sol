// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ChannelConfig} from "./BatchSettlementTypes.sol";

/// @notice The channel contract's events and custom errors. `Settled` is the event the x402 EVM
/// SDK's facilitator parses from a settle receipt, so its name, field order and indexing are fixed.
interface IBatchSettlementEvents {
    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, address indexed collector, uint128 amount, uint128 balance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 totalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount, uint256 nonce);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint256 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error Reentrancy();
    error ZeroAmount();
    error InvalidChannelConfig();
    error DepositNotReceived(uint256 expected, uint256 received);
    error EmptyClaims();
    error Unauthorized();
    error AuthorizerMismatch();
    error InvalidVoucherSignature(bytes32 channelId);
    error InvalidAuthorizerSignature();
    error ClaimExceedsVoucher(bytes32 channelId, uint128 totalClaimed, uint128 maxClaimableAmount);
    error ClaimExceedsBalance(bytes32 channelId, uint128 totalClaimed, uint128 balance);
    error InvalidRefundNonce(uint256 expected, uint256 given);
    error WithdrawExceedsUnclaimed(uint128 amount, uint128 unclaimed);
    error WithdrawPending();
    error NoPendingWithdraw();
    error WithdrawDelayNotElapsed(uint256 finalizeAfter);
}

/// @title SelfMulticall
/// @notice Runs several calls to this contract in one transaction (e.g. claim, then refund), each
/// as if called directly (delegatecall to itself: same sender, same storage); any failure reverts
/// the whole batch with the failing call's own revert data.
abstract contract SelfMulticall {
    error CallFailed(uint256 index);

    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; i++) {
            (bool ok, bytes memory ret) = address(this).delegatecall(data[i]);
            if (!ok) {
                if (ret.length == 0) revert CallFailed(i);
                assembly {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
            results[i] = ret;
        }
    }
}
